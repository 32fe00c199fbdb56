// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ShmIntroductions} against regions written here as libfabric 1.17's {@code include/ofi_shm.h} lays them out
 * (x86-64): {@code struct smr_region} with {@code version} at 0, {@code pid} at 4, {@code total_size} at 40 and
 * {@code peer_data_offset} at 96; 256 {@code struct smr_peer_data} of 272 bytes, the peer's name at 0, its id at 256
 * and {@code name_sent} at 268. The two-process tests (OfiShmEarlyCloseTest) check it against shm's own regions.
 */
class ShmIntroductionsTest {

    private static final int PEER_DATA = 272;
    private static final int TABLE = 4096;
    private static final int SIZE = TABLE + 256 * PEER_DATA + 512;

    private final List<Path> files = new ArrayList<>();
    private final String tag = "jdat-test-" + ThreadLocalRandom.current().nextInt(1 << 30) + "-";
    private Process sleeper;

    @BeforeEach
    void startAPeerProcess() throws IOException {
        sleeper = new ProcessBuilder("sleep", "60").start();
    }

    @AfterEach
    void removeTheRegions() throws IOException, InterruptedException {
        for (Path f : files) {
            Files.deleteIfExists(f);
        }
        sleeper.destroyForcibly();
        sleeper.waitFor(10, TimeUnit.SECONDS);
    }

    @Test
    void aRequestALiveProcessHasNotTakenInIsAwaitedByThatProcess() throws IOException {
        byte[] self = region("self", ProcessHandle.current().pid(), 4);
        region("peer", sleeper.pid(), 4);
        introduce(self, 7, tag + "peer", 1, -1);
        assertEquals(sleeper.pid(), awaited(self));
    }

    @Test
    void aRequestTakenInANameNeverSentAndAMissingOrDeadPeerAwaitNobody() throws Exception {
        byte[] self = region("self", ProcessHandle.current().pid(), 4);
        region("peer", sleeper.pid(), 4);
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor(10, TimeUnit.SECONDS);
        region("dead", ended.pid(), 4);
        region("me", ProcessHandle.current().pid(), 4);
        introduce(self, 0, tag + "peer", 1, 3);
        introduce(self, 1, tag + "peer", 0, -1);
        introduce(self, 2, tag + "missing", 1, -1);
        introduce(self, 3, tag + "dead", 1, -1);
        introduce(self, 4, tag + "me", 1, -1);
        introduce(self, 5, tag + "x/../" + tag + "peer", 1, -1);
        assertEquals(0, awaited(self));
        introduce(self, 200, "fi_shm:///" + tag + "peer", 1, -1);
        assertEquals(sleeper.pid(), awaited(self), "a spelling with / after the scheme");
    }

    /**
     * A listen name taken over by another region since the request went (a listener restarted in another process):
     * the request was queued in the region the name had then, which the new one's process never reads.
     */
    @Test
    void aNameWhoseRegionChangedSinceTheRequestWentIsNotAwaited() throws IOException {
        byte[] self = region("self", ProcessHandle.current().pid(), 4);
        region("old", sleeper.pid(), 4);
        Object old = ShmIntroductions.regionKey(tag + "old");
        region("peer", sleeper.pid(), 4);
        Object now = ShmIntroductions.regionKey(tag + "peer");
        String spelled = "fi_shm://" + tag + "peer";
        introduce(self, 9, spelled, 1, -1);
        assertEquals(0, ShmIntroductions.awaitedBy(self, n -> n.equals(spelled) ? old : null));
        assertEquals(sleeper.pid(), ShmIntroductions.awaitedBy(self, n -> n.equals(spelled) ? now : null));
    }

    @Test
    void aRegionNotLaidOutAsShm117sOrNotThisProcesssIsNotInterpreted() throws IOException {
        region("peer", sleeper.pid(), 4);
        byte[] otherVersion = region("v5", ProcessHandle.current().pid(), 5);
        introduce(otherVersion, 0, tag + "peer", 1, -1);
        byte[] otherOwner = region("theirs", sleeper.pid(), 4);
        introduce(otherOwner, 0, tag + "peer", 1, -1);
        byte[] farTable = region("far", ProcessHandle.current().pid(), 4);
        introduce(farTable, 0, tag + "peer", 1, -1);
        for (long offset : new long[] {Long.MAX_VALUE - 8, SIZE, -TABLE, 8}) {
            setLong(farTable, 96, offset);
            assertEquals(0, awaited(farTable), "peer table at " + offset);
        }
        setLong(farTable, 96, TABLE);
        setLong(farTable, 40, Long.MIN_VALUE);
        assertEquals(0, awaited(farTable), "a negative size");
        assertEquals(0, awaited(otherVersion));
        assertEquals(0, awaited(otherOwner));
        assertEquals(0, awaited(address("absent")));
        byte[] tcp = {2, 0, 0x1d, 0x4c, 127, 0, 0, 1};
        assertEquals(0, awaited(tcp), "a tcp address");
    }

    @Test
    void aRegionIsHeldByTheLiveProcessThatMapsIt() throws IOException {
        region("mine", ProcessHandle.current().pid(), 4);
        try (FileChannel c = FileChannel.open(Path.of("/dev/shm", tag + "mine"), StandardOpenOption.READ)) {
            MappedByteBuffer mapped = c.map(FileChannel.MapMode.READ_ONLY, 0, 4096);
            assertEquals(ProcessHandle.current().pid(), ShmIntroductions.holder(tag + "mine"));
            assertEquals(4, mapped.get(0), "the mapping the holder is known by");
        }
    }

    @Test
    void aRegionNoLiveProcessMapsIsStaleAndAMissingOneIsNone() throws Exception {
        region("reused", sleeper.pid(), 4);
        assertEquals(ShmIntroductions.STALE, ShmIntroductions.holder(tag + "reused"), "a live pid that maps it not");
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        region("dead", ended.pid(), 4);
        assertEquals(ShmIntroductions.STALE, ShmIntroductions.holder(tag + "dead"));
        region("other", ProcessHandle.current().pid(), 3);
        assertEquals(ShmIntroductions.STALE, ShmIntroductions.holder(tag + "other"), "another layout's");
        Path empty = Path.of("/dev/shm", tag + "empty");
        files.add(empty);
        Files.write(empty, new byte[0]);
        assertEquals(ShmIntroductions.STALE, ShmIntroductions.holder(tag + "empty"), "a file not written yet");
        assertEquals(ShmIntroductions.NONE, ShmIntroductions.holder(tag + "absent"));
        assertEquals(ShmIntroductions.NONE, ShmIntroductions.holder("a/b"), "a name with a '/' names no region");
    }

    /** {@link ShmIntroductions#awaitedBy} with no name's region known at the request: every live owner counts. */
    private static long awaited(byte[] address) {
        return ShmIntroductions.awaitedBy(address, name -> null);
    }

    /** Writes a region header named {@code tag + name}; returns its address as fi_getname gives it. */
    private byte[] region(String name, long pid, int version) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.nativeOrder());
        b.put(0, (byte) version);
        b.putInt(4, (int) pid);
        b.putLong(40, SIZE);
        b.putLong(96, TABLE);
        for (int i = 0; i < 256; i++) {
            b.putLong(TABLE + i * PEER_DATA + 256, -1);
        }
        Path file = Path.of("/dev/shm", tag + name);
        files.add(file);
        Files.write(file, b.array());
        return address(name);
    }

    private byte[] address(String name) {
        return ("fi_shm://" + tag + name + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    private static void setLong(byte[] address, int at, long value) throws IOException {
        Path file = fileOf(address);
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder());
        b.putLong(at, value);
        Files.write(file, b.array());
    }

    private static Path fileOf(byte[] address) {
        String a = new String(address, 0, address.length - 1, StandardCharsets.US_ASCII);
        return Path.of("/dev/shm", a.substring("fi_shm://".length()));
    }

    /** Sets entry {@code i} of the region's peer table: the peer's name, whether the request went, the peer's id. */
    private static void introduce(byte[] address, int i, String peer, int sent, long id) throws IOException {
        Path file = fileOf(address);
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder());
        int at = TABLE + i * PEER_DATA;
        byte[] n = peer.getBytes(StandardCharsets.US_ASCII);
        b.put(at, new byte[256]);
        b.put(at, n);
        b.putLong(at + 256, id);
        b.putInt(at + 268, sent);
        Files.write(file, b.array());
    }
}
