import java.awt.Color;

/** Spins the CPU on its first move and never answers (the zoo's `cpu` case). */
public class Spinner extends GomokuPlayer {
    static volatile long sink;

    public Move chooseMove(Color[][] board, Color myColour) {
        long n = 0;
        while (true) {
            n = n * 6364136223846793005L + 1442695040888963407L;
            sink = n;
        }
    }
}
