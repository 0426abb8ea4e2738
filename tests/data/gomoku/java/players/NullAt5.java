public class NullAt5 extends Scripted {
    public NullAt5() {
        super("null", 5);
    }
}
