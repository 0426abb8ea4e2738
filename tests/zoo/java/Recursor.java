import java.awt.Color;

/** Recurses without end on its first move: a StackOverflowError of thousands of frames. */
public class Recursor extends GomokuPlayer {
    private int deeper(int depth) {
        return deeper(depth + 1) + 1;
    }

    public Move chooseMove(Color[][] board, Color myColour) {
        return new Move(deeper(0), 0);
    }
}
