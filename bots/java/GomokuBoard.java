import java.awt.Canvas;
import java.awt.Color;

/**
 * The course's Gomoku 8x8 board, as arbiter provides it to players: the constants players
 * loop with (GomokuBoard.ROWS, GomokuBoard.COLS) and the public methods a player may call
 * on a board of its own to simulate a game. The rules are those of
 * docs/rules/gomoku.md: white moves first; five or more in a row wins; the game is
 * drawn at once when no five-cell window can be completed any more, or on a full board.
 *
 * It is a java.awt.Canvas as in the course, but arbiter never shows it (players run
 * headless), so it draws nothing.
 */
public class GomokuBoard extends Canvas {
    public static final int ROWS = 8, COLS = 8;
    /** Stones in a line that win. */
    private static final int FIVE = 5;

    private final Color[][] board = new Color[ROWS][COLS];
    private Color turn;
    /** null while in play, the winner's colour, or Color.blue for a draw. */
    private Color winner;
    private int moveCount;

    public GomokuBoard() {
        init();
    }

    /** Empties the board; white is to move. */
    public void init() {
        for (Color[] row : board) {
            java.util.Arrays.fill(row, null);
        }
        turn = Color.white;
        winner = null;
        moveCount = 0;
    }

    /**
     * Plays move for colour and says what happened. A move out of turn, or on a finished
     * game, changes nothing. A null move, a move off the board or onto a stone ends the game:
     * the opponent wins.
     */
    public String makeMove(Move move, Color colour) {
        if (winner != null) {
            return "the game is over: " + result();
        }
        if (colour == null || !colour.equals(turn)) {
            return "not " + name(colour) + "'s turn: " + name(turn) + " is to move";
        }
        Color opponent = other(colour);
        if (move == null) {
            winner = opponent;
            return name(colour) + " made no move: " + result();
        }
        if (move.row < 0 || move.row >= ROWS || move.col < 0 || move.col >= COLS) {
            winner = opponent;
            return name(colour) + " played off the board at (" + move.row + ", " + move.col
                    + "): " + result();
        }
        if (board[move.row][move.col] != null) {
            winner = opponent;
            return name(colour) + " played on a stone at (" + move.row + ", " + move.col
                    + "): " + result();
        }
        board[move.row][move.col] = turn;
        moveCount++;
        if (makesFive(move.row, move.col)) {
            winner = turn;
        } else if (moveCount == ROWS * COLS || noWindowLeft()) {
            winner = Color.blue;
        } else {
            turn = opponent;
            return "ok";
        }
        return result();
    }

    /** null while in play, Color.white or Color.black, or Color.blue for a draw. */
    public Color getWinner() {
        return winner;
    }

    /** The colour to move. */
    public Color getTurn() {
        return turn;
    }

    /** Stones placed. */
    public int getMoveCount() {
        return moveCount;
    }

    /** A copy of the board, board[row][col]: Color.white, Color.black or null. */
    public Color[][] getPublicBoard() {
        Color[][] copy = new Color[ROWS][];
        for (int r = 0; r < ROWS; r++) {
            copy[r] = board[r].clone();
        }
        return copy;
    }

    private boolean makesFive(int row, int col) {
        int[][] directions = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
        for (int[] d : directions) {
            int count = 1 + run(row, col, d[0], d[1]) + run(row, col, -d[0], -d[1]);
            if (count >= FIVE) {
                return true;
            }
        }
        return false;
    }

    /** Stones of the colour at (row, col) beyond it in direction (dr, dc). */
    private int run(int row, int col, int dr, int dc) {
        Color colour = board[row][col];
        int n = 0;
        for (int r = row + dr, c = col + dc; r >= 0 && r < ROWS && c >= 0 && c < COLS
                && colour.equals(board[r][c]); r += dr, c += dc) {
            n++;
        }
        return n;
    }

    /** Whether every five-cell window already holds stones of both colours. */
    private boolean noWindowLeft() {
        int[][] directions = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
        for (int[] d : directions) {
            for (int r = 0; r < ROWS; r++) {
                for (int c = 0; c < COLS; c++) {
                    int endRow = r + (FIVE - 1) * d[0];
                    int endCol = c + (FIVE - 1) * d[1];
                    if (endRow < 0 || endRow >= ROWS || endCol < 0 || endCol >= COLS) {
                        continue;
                    }
                    boolean white = false;
                    boolean black = false;
                    for (int i = 0; i < FIVE; i++) {
                        Color cell = board[r + i * d[0]][c + i * d[1]];
                        white |= Color.white.equals(cell);
                        black |= Color.black.equals(cell);
                    }
                    if (!(white && black)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private String result() {
        if (Color.blue.equals(winner)) {
            return "draw";
        }
        return name(winner) + " wins";
    }

    private static Color other(Color colour) {
        return Color.white.equals(colour) ? Color.black : Color.white;
    }

    private static String name(Color colour) {
        if (Color.white.equals(colour)) {
            return "white";
        }
        if (Color.black.equals(colour)) {
            return "black";
        }
        return String.valueOf(colour);
    }
}
