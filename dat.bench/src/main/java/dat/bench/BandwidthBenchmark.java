// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatMemPriv;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * RDMA bandwidth against a plain {@link MemorySegment#copy} of the same bytes between the same two buffers, in the
 * same run, so the provider's overhead over the copy it ends in reads straight off the table.
 *
 * <p><b>Unit: operations per second</b>, one operation = one transfer of {@code size} bytes, posted and its
 * completion dequeued (for RDMA) on one thread. Bytes per second = score &times; {@code size}; the README shows a
 * one-line conversion of JMH's CSV output. (JMH's {@code @OperationsPerInvocation} takes a constant, so it cannot
 * follow a {@code @Param} size.)
 *
 * <p>{@code rdmaWrite} copies the local buffer into the peer's, {@code rdmaRead} the peer's into the local one,
 * {@code memorySegmentCopy} the local into the peer's memory directly. The loopback provider executes an RDMA on
 * the posting thread, so this is the single-thread cost of one transfer.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class BandwidthBenchmark {

    private static final String WRITE = "dat_ep_post_rdma_write";
    private static final String READ = "dat_ep_post_rdma_read";

    /** Bytes per transfer: 4 KiB, 64 KiB, 1 MiB, 16 MiB, 64 MiB. */
    @Param({"4096", "65536", "1048576", "16777216", "67108864"})
    public int size;

    private BenchSession session;
    private DatEp ep;
    private DatEvd requestEvd;
    private Iov localIov;
    private MemorySegment local;
    private MemorySegment remote;
    private int remoteRmrContext;
    private long remoteAddress;
    private long cookie;
    private final DatEvent event = new DatEvent();

    /** Opens the IA, connects the pair, registers a local and a remote buffer of {@code size} bytes. */
    @Setup(Level.Trial)
    public void setUp() {
        session = BenchSession.open(opened -> {
            var attr = opened.epAttr(size, 4, 4);
            BenchSession.Side a = opened.side(attr, 8);
            BenchSession.Side b = opened.side(attr, 8);
            opened.connect(a, b);
            ep = a.ep();
            requestEvd = a.requestEvd();
            BenchSession.Buffer l = opened.buffer(size, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            BenchSession.Buffer r = opened.buffer(size, DatMemPriv.ALL);
            local = l.memory();
            remote = r.memory();
            local.fill((byte) 0x5a);
            localIov = opened.iov(l, size);
            remoteRmrContext = r.lmr().rmrContext();
            remoteAddress = r.lmr().address();
        });
    }

    /** Closes the IA abruptly, then frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        session.close();
    }

    /**
     * One RDMA write of {@code size} bytes and its completion.
     *
     * @return bytes transferred
     */
    @Benchmark
    public long rdmaWrite() {
        Spin.check(ep.postRdmaWrite(1, localIov, cookie++, remoteRmrContext, remoteAddress, size,
                DatCompletionFlags.DEFAULT), WRITE);
        return Spin.completion(requestEvd, event, WRITE, null);
    }

    /**
     * One RDMA read of {@code size} bytes and its completion.
     *
     * @return bytes transferred
     */
    @Benchmark
    public long rdmaRead() {
        Spin.check(ep.postRdmaRead(1, localIov, cookie++, remoteRmrContext, remoteAddress, size,
                DatCompletionFlags.DEFAULT), READ);
        return Spin.completion(requestEvd, event, READ, null);
    }

    /**
     * The baseline: {@code MemorySegment.copy} of the same bytes from the local into the remote buffer.
     *
     * @return the last byte copied, so the copy has a consumer
     */
    @Benchmark
    public byte memorySegmentCopy() {
        MemorySegment.copy(local, 0, remote, 0, size);
        return remote.get(ValueLayout.JAVA_BYTE, size - 1L);
    }
}
