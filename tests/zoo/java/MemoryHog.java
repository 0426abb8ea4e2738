import java.awt.Color;
import java.util.ArrayList;
import java.util.List;

/** Allocates without end on its first move (the zoo's `memory` case). */
public class MemoryHog extends GomokuPlayer {
    public Move chooseMove(Color[][] board, Color myColour) {
        List<long[]> hoard = new ArrayList<>();
        while (true) {
            long[] block = new long[1 << 17];
            block[0] = hoard.size();
            hoard.add(block);
        }
    }
}
