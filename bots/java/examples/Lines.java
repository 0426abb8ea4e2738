import java.awt.Color;

/** Line lengths on a Gomoku board: a helper class next to the example bot, compiled with it. */
final class Lines {
    private static final int[][] DIRECTIONS = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};

    private Lines() {
    }

    /** The longest line of `colour` through (row, col) if a stone of `colour` stood there. */
    static int longest(Color[][] board, int row, int col, Color colour) {
        int best = 0;
        for (int[] d : DIRECTIONS) {
            int n = 1 + run(board, row, col, d[0], d[1], colour) + run(board, row, col, -d[0], -d[1], colour);
            best = Math.max(best, n);
        }
        return best;
    }

    /** How many stones of `colour` lie next to (row, col), all eight directions. */
    static int neighbours(Color[][] board, int row, int col) {
        int n = 0;
        for (int dr = -1; dr <= 1; dr++) {
            for (int dc = -1; dc <= 1; dc++) {
                int r = row + dr;
                int c = col + dc;
                if ((dr != 0 || dc != 0) && inside(board, r, c) && board[r][c] != null) {
                    n++;
                }
            }
        }
        return n;
    }

    private static int run(Color[][] board, int row, int col, int dr, int dc, Color colour) {
        int n = 0;
        int r = row + dr;
        int c = col + dc;
        while (inside(board, r, c) && colour.equals(board[r][c])) {
            n++;
            r += dr;
            c += dc;
        }
        return n;
    }

    static boolean inside(Color[][] board, int r, int c) {
        return r >= 0 && r < board.length && c >= 0 && c < board[r].length;
    }
}
