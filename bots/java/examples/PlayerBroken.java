import java.awt.Color;

/** A course bot that does not compile: a missing semicolon and an unknown type. */
public class PlayerBroken extends GomokuPlayer {
    @Override
    public Move chooseMove(Color[][] board, Color myColour) {
        int row = 3
        Strategy plan = new Strategy();
        return new Move(row, 3);
    }
}
