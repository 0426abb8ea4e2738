import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** The course's example player: a random empty cell. */
public class RandomPlayer extends GomokuPlayer {
    private final Random random = new Random();

    public Move chooseMove(Color[][] board, Color myColour) {
        List<Move> empty = new ArrayList<>();
        for (int row = 0; row < GomokuBoard.ROWS; row++) {
            for (int col = 0; col < GomokuBoard.COLS; col++) {
                if (board[row][col] == null) {
                    empty.add(new Move(row, col));
                }
            }
        }
        return empty.isEmpty() ? null : empty.get(random.nextInt(empty.size()));
    }
}
