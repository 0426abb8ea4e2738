public class NegativeAt4 extends Scripted {
    public NegativeAt4() {
        super("negative", 4);
    }
}
