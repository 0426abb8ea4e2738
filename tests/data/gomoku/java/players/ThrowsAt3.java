public class ThrowsAt3 extends Scripted {
    public ThrowsAt3() {
        super("throw", 3);
    }
}
