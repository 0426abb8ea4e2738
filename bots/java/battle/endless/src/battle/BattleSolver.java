package battle;

/** A wrong example: it searches forever. */
public class BattleSolver {
    public String solve(String state, boolean ab, boolean visualize) {
        long spins = 0;
        while (spins >= 0) {
            spins = (spins + 1) % 1000;
        }
        return ";0;0;";
    }
}
