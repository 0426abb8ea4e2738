import java.awt.Color;

/**
 * A referee in the course's manner, for the differential test (tests/integration/
 * differential_java.rs): plays each game given as WHITE_CLASS:BLACK_CLASS on arbiter's
 * GomokuBoard, in this one JVM, and prints `WHITE BLACK winner STONES` per game (winner:
 * white, black or draw; STONES: stones placed).
 *
 * Course rules for a player's failure: a constructor that throws loses without a move; an
 * exception from chooseMove loses; whatever chooseMove returns goes to makeMove as it is
 * (null, off the board or on a stone ends the game for the opponent there). Each player
 * gets a fresh copy of the board each move.
 */
public final class CourseReferee {
    public static void main(String[] args) {
        for (String game : args) {
            String[] pair = game.split(":");
            System.out.println(pair[0] + " " + pair[1] + " " + play(pair[0], pair[1]));
        }
    }

    private static String play(String whiteClass, String blackClass) {
        GomokuPlayer white = build(whiteClass);
        if (white == null) {
            return "black 0";
        }
        GomokuPlayer black = build(blackClass);
        if (black == null) {
            return "white 0";
        }
        GomokuBoard board = new GomokuBoard();
        while (board.getWinner() == null) {
            Color turn = board.getTurn();
            GomokuPlayer mover = Color.white.equals(turn) ? white : black;
            Move move;
            try {
                move = mover.chooseMove(board.getPublicBoard(), turn);
            } catch (Throwable t) {
                return name(Color.white.equals(turn) ? Color.black : Color.white) + " "
                        + board.getMoveCount();
            }
            board.makeMove(move, turn);
        }
        Color winner = board.getWinner();
        return (Color.blue.equals(winner) ? "draw" : name(winner)) + " " + board.getMoveCount();
    }

    private static GomokuPlayer build(String className) {
        try {
            return (GomokuPlayer) Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (Throwable t) {
            return null;
        }
    }

    private static String name(Color colour) {
        return Color.white.equals(colour) ? "white" : "black";
    }
}
