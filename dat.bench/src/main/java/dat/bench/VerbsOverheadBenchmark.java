// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.provider.verbs.internal.ffm.IbvOps;
import dat.provider.verbs.internal.ffm.IbvSendWr;
import dat.provider.verbs.internal.ffm.IbvWc;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the verbs provider's Java side costs per data-path call, against C making the same call: a post, a poll of
 * an empty CQ and an arm go through {@link IbvOps} (the invokers the provider uses) into a null device (the
 * resource {@code nulldev.c}, compiled with gcc at set-up: functions with the ops-table signatures that do almost
 * nothing), beside the same calls through a plain downcall invoker taking segments (what the provider's invokers
 * save: {@code Linker.Option.critical(false)}, and addresses in place of shared-arena segments) and beside a C loop
 * calling them through a function pointer as libibverbs' inline {@code ibv_post_send} does (the floor; the one
 * downcall into the loop is spread over {@link #LOOP} calls).
 *
 * <table>
 * <caption>Benchmarks</caption>
 * <tr><th>benchmark</th><th>one operation</th></tr>
 * <tr><td>{@code postSend}, {@code postSendPlain}, {@code postSendC}</td><td>write the request's id, then
 *     {@code post_send}</td></tr>
 * <tr><td>{@code pollCq}, {@code pollCqPlain}, {@code pollCqC}</td><td>{@code poll_cq} of up to 16 on an empty
 *     CQ (the common case of a busy poll)</td></tr>
 * <tr><td>{@code reqNotifyCq}, {@code reqNotifyCqPlain}</td><td>{@code req_notify_cq}</td></tr>
 * </table>
 *
 * <p>Run: {@code java -jar dat.bench/target/benchmarks.jar VerbsOverheadBenchmark} (needs gcc). It measures the
 * downcall layer only: building the work request from an {@code Iov} and the slot bookkeeping above it are the
 * provider's own and run before the call on either side. The ratio of interest is {@code postSend / postSendC}.
 */
// Restricted methods on purpose: the fork grants the class path native access.
@SuppressWarnings("restricted")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class VerbsOverheadBenchmark {

    /** Calls per C loop invocation. */
    static final int LOOP = 1000;
    private static final int POLL_ENTRIES = 16;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle PLAIN_POST_SEND = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle PLAIN_POLL_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle PLAIN_REQ_NOTIFY_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle C_POST_SEND_LOOP = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle C_POLL_CQ_LOOP = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));

    private Arena arena;
    private Path dir;
    private MemorySegment postSendFn;
    private MemorySegment pollCqFn;
    private MemorySegment reqNotifyCqFn;
    private MemorySegment postSendLoopFn;
    private MemorySegment pollCqLoopFn;
    /**
     * Stand-ins for the driver's objects (the null device reads only the request's id), in a shared arena as the
     * provider's are.
     */
    private MemorySegment qp;
    private MemorySegment cq;
    private MemorySegment wr;
    private MemorySegment badWr;
    private MemorySegment wc;
    private long id;

    /** Compiles the null device and finds its functions. */
    @SuppressWarnings("MustBeClosedChecker") // the arena lives for the trial: tearDown closes it
    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        dir = Files.createTempDirectory("dat-bench-nulldev");
        Path source = dir.resolve("nulldev.c");
        try (InputStream in = VerbsOverheadBenchmark.class.getResourceAsStream("nulldev.c")) {
            if (in == null) {
                throw new IllegalStateException("nulldev.c is missing from the benchmark jar");
            }
            Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
        }
        Path library = dir.resolve("libdatnulldev.so");
        Process gcc = new ProcessBuilder("gcc", "-O2", "-shared", "-fPIC", "-o", library.toString(), source.toString())
                .inheritIO().start();
        if (gcc.waitFor() != 0) {
            throw new IllegalStateException("gcc could not build the null device (is gcc installed?)");
        }
        arena = Arena.ofShared();
        SymbolLookup lookup = SymbolLookup.libraryLookup(library, arena);
        // Global-scope function pointers, as the provider reads them from the context's ops table.
        postSendFn = MemorySegment.ofAddress(lookup.findOrThrow("null_post_send").address());
        pollCqFn = MemorySegment.ofAddress(lookup.findOrThrow("null_poll_cq").address());
        reqNotifyCqFn = MemorySegment.ofAddress(lookup.findOrThrow("null_req_notify_cq").address());
        postSendLoopFn = MemorySegment.ofAddress(lookup.findOrThrow("c_post_send_loop").address());
        pollCqLoopFn = MemorySegment.ofAddress(lookup.findOrThrow("c_poll_cq_loop").address());
        qp = arena.allocate(64, 64);
        cq = arena.allocate(64, 64);
        wr = arena.allocate(IbvSendWr.LAYOUT);
        badWr = arena.allocate(ADDRESS);
        wc = arena.allocate(IbvWc.LAYOUT, POLL_ENTRIES);
    }


    /** Unloads the null device and removes its files. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        arena.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    /** {@return 0} One post through the provider's invoker. */
    @Benchmark
    public int postSend() {
        IbvSendWr.wrId(wr, ++id);
        return check(IbvOps.post_send(postSendFn, qp, wr, badWr));
    }

    /** {@return 0} One post through a plain (not critical) invoker. */
    @Benchmark
    public int postSendPlain() throws Throwable {
        IbvSendWr.wrId(wr, ++id);
        return check((int) PLAIN_POST_SEND.invokeExact(postSendFn, qp, wr, badWr));
    }

    /** {@return 0} {@link #LOOP} posts made by C. */
    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long postSendC() throws Throwable {
        return check((int) (long) C_POST_SEND_LOOP.invokeExact(postSendLoopFn, postSendFn, qp, wr, badWr,
                (long) LOOP));
    }

    /** {@return 0} One empty poll through the provider's invoker. */
    @Benchmark
    public int pollCq() {
        return check(IbvOps.poll_cq(pollCqFn, cq, POLL_ENTRIES, wc));
    }

    /** {@return 0} One empty poll through a plain invoker. */
    @Benchmark
    public int pollCqPlain() throws Throwable {
        return check((int) PLAIN_POLL_CQ.invokeExact(pollCqFn, cq, POLL_ENTRIES, wc));
    }

    /** {@return 0} {@link #LOOP} empty polls made by C. */
    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long pollCqC() throws Throwable {
        return check((int) (long) C_POLL_CQ_LOOP.invokeExact(pollCqLoopFn, pollCqFn, cq, POLL_ENTRIES, wc,
                (long) LOOP));
    }

    /** {@return 0} One arm through the provider's invoker. */
    @Benchmark
    public int reqNotifyCq() {
        return check(IbvOps.req_notify_cq(reqNotifyCqFn, cq, 0));
    }

    /** {@return 0} One arm through a plain invoker. */
    @Benchmark
    public int reqNotifyCqPlain() throws Throwable {
        return check((int) PLAIN_REQ_NOTIFY_CQ.invokeExact(reqNotifyCqFn, cq, 0));
    }

    /** A null device never fails: a non-zero result means the benchmark measures something else. */
    private static int check(int rc) {
        if (rc != 0) {
            throw new IllegalStateException("the null device returned " + rc);
        }
        return rc;
    }
}
