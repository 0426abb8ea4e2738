/** A Gomoku move: place a stone on (row, col), both counted from 0. */
public class Move {
    public int row, col;

    public Move(int row, int col) {
        this.row = row;
        this.col = col;
    }
}
