import java.awt.Color;

/**
 * Keeps to its half of a pattern in which no line of five has one colour (white the cells
 * where (col + 2 row) / 2 is even, black the others), row by row, else the first empty
 * cell: two of them draw.
 */
public class Pattern extends GomokuPlayer {
    public Move chooseMove(Color[][] board, Color me) {
        int mine = Color.white.equals(me) ? 0 : 1;
        for (int r = 0; r < GomokuBoard.ROWS; r++) {
            for (int c = 0; c < GomokuBoard.COLS; c++) {
                if (board[r][c] == null && ((c + 2 * r) / 2) % 2 == mine) {
                    return new Move(r, c);
                }
            }
        }
        return new SequencePlayer().chooseMove(board, me);
    }
}
