import java.awt.Color;

/** The last empty cell, looping with GomokuBoard.ROWS and COLS; its class is not named
 * after its file (so it is not public). */
class BackwardPlayer extends GomokuPlayer {
    public Move chooseMove(Color[][] board, Color myColour) {
        for (int row = GomokuBoard.ROWS - 1; row >= 0; row--) {
            for (int col = GomokuBoard.COLS - 1; col >= 0; col--) {
                if (board[row][col] == null) {
                    return new Move(row, col);
                }
            }
        }
        return null;
    }
}
