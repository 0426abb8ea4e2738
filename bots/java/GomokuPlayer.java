import java.awt.Color;

/**
 * The course's bot interface for Gomoku 8x8, as arbiter provides it: a bot extends this
 * class, has a public no-argument constructor, and answers each turn with a move.
 *
 * The board is a fresh copy each turn, indexed board[row][col] (8 x 8); a cell is
 * Color.white, Color.black, or null when empty. White moves first.
 */
public abstract class GomokuPlayer {
    public abstract Move chooseMove(Color[][] board, Color myColour);
}
