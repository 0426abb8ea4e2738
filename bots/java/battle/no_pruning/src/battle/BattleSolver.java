package battle;

/** A wrong example: it never prunes, whatever {@code ab} says (plain minimax always). */
public class BattleSolver {
    private int expanded;
    private int us;
    private boolean ab;

    public String solve(String state, boolean ab, boolean visualize) {
        Node root = Node.parse(state);
        this.us = root.toMove;
        this.ab = ab;
        this.expanded = 0;
        StringBuilder plan = new StringBuilder();
        int score = search(root, Integer.MIN_VALUE, Integer.MAX_VALUE, plan);
        return plan + ";" + score + ";" + expanded + ";";
    }

    /** The value of {@code n} for the starting player; its principal variation goes to {@code pv}. */
    private int search(Node n, int alpha, int beta, StringBuilder pv) {
        if (n.over()) {
            return n.total(us) > 0 ? n.total(us) : -n.total(1 - us);
        }
        expanded++;
        boolean max = n.toMove == us;
        int best = max ? Integer.MIN_VALUE : Integer.MAX_VALUE;
        String bestLine = "";
        int me = n.toMove;
        search:
        for (int i = 0; i < n.health[me].length; i++) {
            if (n.health[me][i] == 0) continue;
            for (int j = 0; j < n.health[1 - me].length; j++) {
                if (n.health[1 - me][j] == 0) continue;
                StringBuilder rest = new StringBuilder();
                int v = search(n.attack(i, j), alpha, beta, rest);
                if (max ? v > best : v < best) {
                    best = v;
                    String action = Node.letter(me) + "(" + i + "," + j + ")";
                    bestLine = rest.length() == 0 ? action : action + "," + rest;
                }
            }
        }
        pv.append(bestLine);
        return best;
    }
}
