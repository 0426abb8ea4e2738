package battle;

/** A Battle position: both armies' health and damage, and the player to move (0 = A, 1 = B). */
public class Node {
    final int[][] health;
    final int[][] damage;
    final int toMove;

    Node(int[][] health, int[][] damage, int toMove) {
        this.health = health;
        this.damage = damage;
        this.toMove = toMove;
    }

    /** Reads the course's state string {@code hA0,dA0,...;hB0,dB0,...;S;}. */
    static Node parse(String state) {
        String[] parts = state.split(";");
        int[][] health = new int[2][];
        int[][] damage = new int[2][];
        for (int p = 0; p < 2; p++) {
            String[] numbers = parts[p].split(",");
            health[p] = new int[numbers.length / 2];
            damage[p] = new int[numbers.length / 2];
            for (int u = 0; u < numbers.length / 2; u++) {
                health[p][u] = Integer.parseInt(numbers[2 * u].trim());
                damage[p][u] = Integer.parseInt(numbers[2 * u + 1].trim());
            }
        }
        return new Node(health, damage, parts[2].trim().equals("A") ? 0 : 1);
    }

    int total(int player) {
        int sum = 0;
        for (int h : health[player]) sum += h;
        return sum;
    }

    boolean over() {
        return total(0) == 0 || total(1) == 0;
    }

    /** The position after the mover's unit {@code i} attacks the opponent's unit {@code j}. */
    Node attack(int i, int j) {
        int[][] next = {health[0].clone(), health[1].clone()};
        int enemy = 1 - toMove;
        next[enemy][j] = Math.max(0, next[enemy][j] - damage[toMove][i]);
        return new Node(next, damage, enemy);
    }

    static char letter(int player) {
        return player == 0 ? 'A' : 'B';
    }
}
