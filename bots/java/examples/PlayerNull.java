import java.awt.Color;

/** A course bot that gives up at once: chooseMove returns null. */
public class PlayerNull extends GomokuPlayer {
    @Override
    public Move chooseMove(Color[][] board, Color myColour) {
        return null;
    }
}
