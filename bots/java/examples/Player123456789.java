import java.awt.Color;

/**
 * An example course-style Gomoku bot: completes a five when it can, blocks the opponent's
 * five otherwise, else plays next to the stones already on the board, preferring its own
 * longest line. Deterministic. Prints a line per move to System.out (which arbiter's driver
 * sends to the bot's stderr log, away from the protocol).
 */
public class Player123456789 extends GomokuPlayer {
    private int moves;

    public Player123456789() {
        System.out.println("Player123456789 ready");
    }

    @Override
    public Move chooseMove(Color[][] board, Color myColour) {
        moves++;
        System.out.println("Player123456789 thinking about move " + moves);
        Color other = Color.white.equals(myColour) ? Color.black : Color.white;
        int size = board.length;
        // 1. Complete five.  2. Block the opponent's five.
        for (Color colour : new Color[] {myColour, other}) {
            for (int r = 0; r < size; r++) {
                for (int c = 0; c < board[r].length; c++) {
                    if (board[r][c] == null && Lines.longest(board, r, c, colour) >= 5) {
                        return new Move(r, c);
                    }
                }
            }
        }
        // 3. Next to the stones: own line length first, then the opponent's, then contact.
        Move best = null;
        int bestScore = Integer.MIN_VALUE;
        for (int r = 0; r < size; r++) {
            for (int c = 0; c < board[r].length; c++) {
                if (board[r][c] != null) {
                    continue;
                }
                int centre = -Math.abs(2 * r - (size - 1)) - Math.abs(2 * c - (board[r].length - 1));
                int score = 100 * Lines.longest(board, r, c, myColour)
                        + 60 * Lines.longest(board, r, c, other)
                        + 10 * Lines.neighbours(board, r, c)
                        + centre;
                if (score > bestScore) {
                    bestScore = score;
                    best = new Move(r, c);
                }
            }
        }
        return best;
    }
}
