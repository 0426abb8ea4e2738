public class OffBoardAt2 extends Scripted {
    public OffBoardAt2() {
        super("off", 2);
    }
}
