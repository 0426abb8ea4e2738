import java.awt.Color;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * Reports where and how it runs, on its stdout (which arbiter keeps as its stderr log),
 * then plays like SequencePlayer: its uid, its working folder, its environment and its
 * resource limits.
 */
public class Reporter extends SequencePlayer {
    public Reporter() throws Exception {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                System.out.println("uid " + line.split("\\s+")[1]);
            }
        }
        System.out.println("folder " + Paths.get("").toAbsolutePath());
        System.out.println("own source " + Files.exists(Paths.get("Reporter.java")));
        System.out.println("PATH " + System.getenv("PATH"));
        System.out.println("HOME " + System.getenv("HOME"));
        System.out.println("classpath " + System.getProperty("java.class.path"));
        for (String line : Files.readAllLines(Paths.get("/proc/self/limits"))) {
            if (line.startsWith("Max cpu time") || line.startsWith("Max file size")
                    || line.startsWith("Max address space")) {
                System.out.println("limit " + line.replaceAll("\\s+", " "));
            }
        }
        System.out.flush();
    }
}
