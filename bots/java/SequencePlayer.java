import java.awt.Color;

/** The course's example player: the first empty cell, row by row. */
public class SequencePlayer extends GomokuPlayer {
    public Move chooseMove(Color[][] board, Color myColour) {
        for (int row = 0; row < GomokuBoard.ROWS; row++) {
            for (int col = 0; col < GomokuBoard.COLS; col++) {
                if (board[row][col] == null) {
                    return new Move(row, col);
                }
            }
        }
        return null;
    }
}
