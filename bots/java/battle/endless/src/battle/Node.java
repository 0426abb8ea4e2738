package battle;

/** A position, as the course's layout asks for; this example never gets to use it. */
public class Node {
    int[] health;
}
