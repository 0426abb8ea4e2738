import java.awt.Color;
import java.io.FileOutputStream;
import java.io.IOException;

/** Writes a 3 MiB file in its folder on its first move (the zoo's `file_size` case). */
public class BigWriter extends SequencePlayer {
    public Move chooseMove(Color[][] board, Color myColour) {
        try (FileOutputStream out = new FileOutputStream("big.bin")) {
            byte[] block = new byte[64 << 10];
            for (int i = 0; i < 48; i++) {
                out.write(block);
            }
        } catch (IOException e) {
            throw new RuntimeException("writing big.bin", e);
        }
        System.out.println("wrote 3 MiB");
        return super.chooseMove(board, myColour);
    }
}
