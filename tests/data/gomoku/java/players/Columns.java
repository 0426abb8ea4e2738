public class Columns extends Scripted {
    public Columns() {
        super("none", 0);
    }
}
