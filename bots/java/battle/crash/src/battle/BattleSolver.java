package battle;

/** A wrong example: it prints a line of its own, then dereferences a missing node. */
public class BattleSolver {
    public String solve(String state, boolean ab, boolean visualize) {
        System.out.println("solving " + state);
        Node root = null;
        return ";" + root.health.length + ";0;";
    }
}
