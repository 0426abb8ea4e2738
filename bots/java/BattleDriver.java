package battle;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;

/**
 * Runs a course Battle solver for arbiter's solver checker:
 * {@code java -cp CLASSES battle.BattleDriver STATE true|false [STATE true|false ...]}.
 *
 * For each pair it calls {@code new BattleSolver().solve(state, ab, false)} and prints one
 * line {@code arbiter-answer NANOS ANSWER} on stdout (a null answer is {@code null}; a
 * backslash, newline or carriage return in the answer is escaped as \\, \n, \r). Whatever
 * the solver itself prints, on System.out or System.err, goes to stderr, so it can never
 * be taken for the answer. The solver runs on a thread with a large stack: course solvers
 * recurse once per ply. An exception ends the run with its stack trace on stderr.
 */
public final class BattleDriver {
    private BattleDriver() {}

    public static void main(String[] args) throws Throwable {
        PrintStream answers = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, "UTF-8"));
        long stackMb = Long.getLong("arbiter.stack.mb", 256L);
        for (int k = 0; k + 1 < args.length; k += 2) {
            final String state = args[k];
            final boolean ab = Boolean.parseBoolean(args[k + 1]);
            final String[] answer = new String[1];
            final Throwable[] thrown = new Throwable[1];
            final long[] nanos = new long[1];
            Thread solver = new Thread(null, () -> {
                long t0 = System.nanoTime();
                try {
                    answer[0] = new BattleSolver().solve(state, ab, false);
                } catch (Throwable t) {
                    thrown[0] = t;
                }
                nanos[0] = System.nanoTime() - t0;
            }, "solver", stackMb << 20);
            solver.start();
            solver.join();
            if (thrown[0] != null) {
                throw thrown[0];
            }
            String text = answer[0] == null ? "null" : answer[0]
                    .replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
            answers.println("arbiter-answer " + nanos[0] + " " + text);
        }
    }
}
