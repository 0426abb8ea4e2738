import java.awt.Color;

/** A course bot that plays two moves, then throws on its third. */
public class PlayerThrows extends GomokuPlayer {
    private int moves;

    @Override
    public Move chooseMove(Color[][] board, Color myColour) {
        moves++;
        if (moves == 3) {
            throw new IllegalStateException("deliberate failure on move 3");
        }
        for (int r = 0; r < board.length; r++) {
            for (int c = 0; c < board[r].length; c++) {
                if (board[r][c] == null) {
                    return new Move(r, c);
                }
            }
        }
        return null;
    }
}
