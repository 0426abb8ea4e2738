/** The course's example player, unchanged. */
public class Seq extends SequencePlayer {
}
