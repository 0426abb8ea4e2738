package battle;

/**
 * Minimax, with or without alpha-beta pruning, by the course's conventions: children
 * attacker ascending then target ascending, a node counted when its children are
 * generated, the first best child kept on ties, and a cut as soon as alpha >= beta.
 */
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
                if (ab) {
                    if (max) alpha = Math.max(alpha, best);
                    else beta = Math.min(beta, best);
                    if (alpha >= beta) break search;
                }
            }
        }
        pv.append(bestLine);
        return best;
    }
}
