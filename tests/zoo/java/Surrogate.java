import java.awt.Color;

/** Throws an exception whose message holds a lone surrogate, which has no UTF-8 form. */
public class Surrogate extends GomokuPlayer {
    public Move chooseMove(Color[][] board, Color myColour) {
        throw new IllegalStateException("lone \uD800 surrogate and a pair \uD83D\uDE00");
    }
}
