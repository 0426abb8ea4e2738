import java.awt.Color;
import java.util.ArrayList;
import java.util.List;

/**
 * Simulates on boards of its own: wins when a move wins, else blocks a cell where the
 * opponent would win, else plays the empty cell nearest the centre.
 */
public class Simulator extends GomokuPlayer {
    public Move chooseMove(Color[][] board, Color me) {
        Color them = Color.white.equals(me) ? Color.black : Color.white;
        List<Move> empty = new ArrayList<>();
        for (int r = 0; r < GomokuBoard.ROWS; r++) {
            for (int c = 0; c < GomokuBoard.COLS; c++) {
                if (board[r][c] == null) {
                    empty.add(new Move(r, c));
                }
            }
        }
        for (Move m : empty) {
            GomokuBoard b = replay(board);
            b.makeMove(m, me);
            if (me.equals(b.getWinner())) {
                return m;
            }
        }
        for (Move m : empty) {
            for (Move elsewhere : empty) {
                if (elsewhere == m) {
                    continue;
                }
                GomokuBoard b = replay(board);
                b.makeMove(elsewhere, me);
                if (b.getWinner() == null) {
                    b.makeMove(m, them);
                    if (them.equals(b.getWinner())) {
                        return m;
                    }
                }
                break;
            }
        }
        Move best = null;
        double nearest = Double.MAX_VALUE;
        for (Move m : empty) {
            double d = Math.abs(m.row - 3.5) + Math.abs(m.col - 3.5) + m.row * 0.01 + m.col * 0.001;
            if (d < nearest) {
                nearest = d;
                best = m;
            }
        }
        return best;
    }

    /** A board holding the stones of `board`, white's and black's played in turn. */
    private static GomokuBoard replay(Color[][] board) {
        List<Move> white = new ArrayList<>();
        List<Move> black = new ArrayList<>();
        for (int r = 0; r < GomokuBoard.ROWS; r++) {
            for (int c = 0; c < GomokuBoard.COLS; c++) {
                if (Color.white.equals(board[r][c])) {
                    white.add(new Move(r, c));
                } else if (Color.black.equals(board[r][c])) {
                    black.add(new Move(r, c));
                }
            }
        }
        GomokuBoard b = new GomokuBoard();
        for (int i = 0; i < white.size(); i++) {
            b.makeMove(white.get(i), Color.white);
            if (i < black.size()) {
                b.makeMove(black.get(i), Color.black);
            }
        }
        return b;
    }
}
