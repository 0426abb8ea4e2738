public class OccupiedAt3 extends Scripted {
    public OccupiedAt3() {
        super("occupied", 3);
    }
}
