import java.awt.Color;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a course-style Gomoku bot (a class extending GomokuPlayer) as an arbiter protocol v1
 * bot (docs/PROTOCOL.md).
 *
 * Usage: java -Djava.awt.headless=true -cp DIR ArbiterDriver CLASS_NAME
 *
 * The protocol is read from the process's stdin and written to its original stdout; the
 * bot's System.out is pointed at stderr and System.in at an empty stream, so whatever the bot
 * prints never reaches the protocol. The bot is built once, during the handshake, with its
 * public no-argument constructor; each turn it gets a fresh Color[][] copy of the board
 * (board[row][col]: Color.white, Color.black or null). An exception, an error (a stack
 * overflow, say) or a null move is reported as an `error` message: the bot loses by
 * `exception`. The bot is reached by reflection only, so it may live in a named package
 * (arbiter compiles the course environment into that package). Strings sent are valid
 * JSON for any Java string (a lone surrogate becomes U+FFFD). JDK only, Java 8 or newer.
 */
public final class ArbiterDriver {
    /** The bot runs on a thread with a large stack: course bots often recurse deeply. Under
     * a memory limit arbiter passes a smaller one (-Darbiter.stack.mb), since the stack is
     * reserved address space. */
    private static final long STACK_BYTES = Long.getLong("arbiter.stack.mb", 256L) << 20;

    private final BufferedReader in;
    private final PrintStream out;
    private final String className;
    private Object bot;
    private Method chooseMove;

    private ArbiterDriver(BufferedReader in, PrintStream out, String className) {
        this.in = in;
        this.out = out;
        this.className = className;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: ArbiterDriver CLASS_NAME");
            System.exit(2);
        }
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        BufferedReader in = new BufferedReader(
                new InputStreamReader(new FileInputStream(FileDescriptor.in), StandardCharsets.UTF_8));
        System.setOut(System.err);
        System.setIn(new ByteArrayInputStream(new byte[0]));
        final ArbiterDriver driver = new ArbiterDriver(in, out, args[0]);
        final int[] code = {0};
        Thread thread = new Thread(null, () -> {
            try {
                code[0] = driver.run();
            } catch (Throwable t) {
                t.printStackTrace();
                code[0] = 1;
            }
        }, "arbiter-bot", STACK_BYTES);
        thread.start();
        thread.join();
        System.err.flush();
        // Threads the bot may have left running must not keep the JVM alive.
        System.exit(code[0]);
    }

    private int run() throws Exception {
        String role = null;
        Map<String, Object> hello = receive();
        if (hello == null) {
            return 0;
        }
        Object game = hello.get("game");
        if (game != null && !"gomoku".equals(game)) {
            sendError("this adapter plays gomoku, not " + game);
            return 1;
        }
        if (hello.get("role") instanceof String) {
            role = (String) hello.get("role");
        }
        try {
            load();
        } catch (Throwable t) {
            sendError("cannot build " + className + ": " + trace(unwrap(t)));
            return 1;
        }
        String name = className.substring(className.lastIndexOf('.') + 1);
        send("{\"type\":\"ready\",\"name\":" + quote(name) + "}");

        while (true) {
            Map<String, Object> message = receive();
            if (message == null || "end".equals(message.get("type"))) {
                return 0;
            }
            if (!"turn".equals(message.get("type"))) {
                continue;
            }
            if (message.get("role") instanceof String) {
                role = (String) message.get("role");
            }
            Color[][] board;
            try {
                board = board(message.get("board"));
            } catch (RuntimeException e) {
                sendError("the adapter cannot read the turn's board: " + e.getMessage());
                return 1;
            }
            Color mine = "black".equals(role) ? Color.black : Color.white;
            Object move;
            try {
                move = chooseMove.invoke(bot, board, mine);
            } catch (Throwable t) {
                sendError(trace(unwrap(t)));
                return 1;
            }
            if (move == null) {
                sendError(className + ".chooseMove returned null (no move)");
                return 1;
            }
            int row;
            int col;
            try {
                Field r = move.getClass().getField("row");
                Field c = move.getClass().getField("col");
                row = r.getInt(move);
                col = c.getInt(move);
            } catch (ReflectiveOperationException | RuntimeException e) {
                sendError("chooseMove returned " + move.getClass().getName()
                        + ", not a Move with int fields row and col");
                return 1;
            }
            send("{\"type\":\"move\",\"move\":[" + row + "," + col + "]}");
        }
    }

    /** Builds the bot with its no-argument constructor and finds its chooseMove. */
    private void load() throws Exception {
        Class<?> type = Class.forName(className);
        Constructor<?> constructor = type.getDeclaredConstructor();
        constructor.setAccessible(true);
        Method method = null;
        for (Class<?> c = type; c != null && method == null; c = c.getSuperclass()) {
            try {
                method = c.getDeclaredMethod("chooseMove", Color[][].class, Color.class);
            } catch (NoSuchMethodException e) {
                // Look further up.
            }
        }
        if (method == null || java.lang.reflect.Modifier.isAbstract(method.getModifiers())) {
            throw new NoSuchMethodException(className + " has no chooseMove(Color[][], Color)");
        }
        method.setAccessible(true);
        bot = constructor.newInstance();
        chooseMove = method;
    }

    /** A fresh board from the wire's rows of '.', 'W' and 'B'. */
    private static Color[][] board(Object value) {
        if (!(value instanceof List)) {
            throw new IllegalArgumentException("the board is not a list of rows");
        }
        List<?> rows = (List<?>) value;
        Color[][] board = new Color[rows.size()][];
        for (int r = 0; r < rows.size(); r++) {
            Object row = rows.get(r);
            if (!(row instanceof String)) {
                throw new IllegalArgumentException("row " + r + " is not a string");
            }
            String text = (String) row;
            board[r] = new Color[text.length()];
            for (int c = 0; c < text.length(); c++) {
                char ch = text.charAt(c);
                board[r][c] = ch == 'W' ? Color.white : ch == 'B' ? Color.black : null;
            }
        }
        return board;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof InvocationTargetException || t instanceof ExceptionInInitializerError)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The stack trace as Java prints it, its head only when it is long: the referee keeps
     * the end of an error message, and a deep recursion's trace (thousands of frames of a
     * StackOverflowError) would leave it the repeated frames without the exception's type. */
    private static String trace(Throwable t) {
        StringWriter text = new StringWriter();
        t.printStackTrace(new PrintWriter(text));
        String[] lines = text.toString().split("\n", -1);
        if (lines.length <= TRACE_LINES) {
            return text.toString();
        }
        StringBuilder head = new StringBuilder();
        for (int i = 0; i < TRACE_LINES; i++) {
            head.append(lines[i]).append('\n');
        }
        head.append("\t... ").append(lines.length - TRACE_LINES).append(" more lines\n");
        return head.toString();
    }

    /** The lines of a stack trace sent at most: about 2 KiB, within what the referee keeps. */
    private static final int TRACE_LINES = 40;

    private void send(String line) {
        out.print(line);
        out.print('\n');
        out.flush();
    }

    private void sendError(String message) {
        send("{\"type\":\"error\",\"message\":" + quote(message) + "}");
    }

    /** The next protocol message, or null at end of input; lines that are not JSON objects
     * are skipped. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> receive() throws java.io.IOException {
        while (true) {
            String line = in.readLine();
            if (line == null) {
                return null;
            }
            try {
                Object value = new Json(line).document();
                if (value instanceof Map) {
                    return (Map<String, Object>) value;
                }
            } catch (IllegalArgumentException e) {
                // Not JSON: skipped.
            }
        }
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (Character.isHighSurrogate(ch) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        // A pair is one character, written as UTF-8.
                        b.append(ch).append(s.charAt(++i));
                    } else if (Character.isSurrogate(ch)) {
                        // A lone surrogate has no UTF-8 form, and its \\u escape is refused
                        // by strict JSON readers (serde_json): the replacement character.
                        b.append("\\ufffd");
                    } else if (ch < 0x20) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
            }
        }
        return b.append('"').toString();
    }

    /** A small JSON reader: objects become maps, arrays lists, numbers doubles. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Object document() {
            Object v = value();
            space();
            if (i != s.length()) {
                throw fail("trailing text");
            }
            return v;
        }

        private IllegalArgumentException fail(String why) {
            return new IllegalArgumentException(why + " at " + i);
        }

        private void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        private Object value() {
            space();
            if (i >= s.length()) {
                throw fail("end of text");
            }
            char ch = s.charAt(i);
            switch (ch) {
                case '{': return object();
                case '[': return array();
                case '"': return string();
                case 't': return word("true", Boolean.TRUE);
                case 'f': return word("false", Boolean.FALSE);
                case 'n': return word("null", null);
                default: return number();
            }
        }

        private Object word(String w, Object v) {
            if (!s.startsWith(w, i)) {
                throw fail("unknown word");
            }
            i += w.length();
            return v;
        }

        private Map<String, Object> object() {
            Map<String, Object> map = new LinkedHashMap<>();
            i++;
            space();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return map;
            }
            while (true) {
                space();
                if (i >= s.length() || s.charAt(i) != '"') {
                    throw fail("a key expected");
                }
                String key = string();
                space();
                expect(':');
                map.put(key, value());
                space();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                } else {
                    expect('}');
                    return map;
                }
            }
        }

        private List<Object> array() {
            List<Object> list = new ArrayList<>();
            i++;
            space();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return list;
            }
            while (true) {
                list.add(value());
                space();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                } else {
                    expect(']');
                    return list;
                }
            }
        }

        private void expect(char ch) {
            if (i >= s.length() || s.charAt(i) != ch) {
                throw fail("'" + ch + "' expected");
            }
            i++;
        }

        private String string() {
            StringBuilder b = new StringBuilder();
            i++;
            while (true) {
                if (i >= s.length()) {
                    throw fail("unterminated string");
                }
                char ch = s.charAt(i++);
                if (ch == '"') {
                    return b.toString();
                }
                if (ch != '\\') {
                    b.append(ch);
                    continue;
                }
                if (i >= s.length()) {
                    throw fail("unterminated escape");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u':
                        if (i + 4 > s.length()) {
                            throw fail("short \\u escape");
                        }
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException x) {
                            throw fail("bad \\u escape");
                        }
                        i += 4;
                        break;
                    default: b.append(e);
                }
            }
        }

        private Double number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            try {
                return Double.valueOf(s.substring(start, i));
            } catch (NumberFormatException x) {
                throw fail("not a number");
            }
        }
    }
}
