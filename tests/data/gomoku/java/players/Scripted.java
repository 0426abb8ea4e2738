import java.awt.Color;

/**
 * A scripted player: the first empty cell column by column, except on its move number
 * `at`, where it commits `fault`: "occupied" (a cell with a stone), "off" (row 8),
 * "negative" (row -1), "null", or "throw".
 */
public abstract class Scripted extends GomokuPlayer {
    private final String fault;
    private final int at;
    private int moves;

    protected Scripted(String fault, int at) {
        this.fault = fault;
        this.at = at;
    }

    public Move chooseMove(Color[][] board, Color me) {
        moves++;
        if (moves == at) {
            switch (fault) {
                case "occupied":
                    for (int r = 0; r < GomokuBoard.ROWS; r++) {
                        for (int c = 0; c < GomokuBoard.COLS; c++) {
                            if (board[r][c] != null) {
                                return new Move(r, c);
                            }
                        }
                    }
                    break;
                case "off":
                    return new Move(GomokuBoard.ROWS, 3);
                case "negative":
                    return new Move(-1, 0);
                case "null":
                    return null;
                case "throw":
                    throw new IllegalStateException("scripted failure on move " + at);
                default:
                    break;
            }
        }
        for (int c = 0; c < GomokuBoard.COLS; c++) {
            for (int r = 0; r < GomokuBoard.ROWS; r++) {
                if (board[r][c] == null) {
                    return new Move(r, c);
                }
            }
        }
        return null;
    }
}
