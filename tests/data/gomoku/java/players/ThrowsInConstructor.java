/** A player whose constructor throws: it loses without a move. */
public class ThrowsInConstructor extends SequencePlayer {
    public ThrowsInConstructor() {
        throw new IllegalStateException("deliberate failure in the constructor");
    }
}
