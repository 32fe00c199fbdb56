// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatLmr;
import dat.api.DatMemPriv;
import java.lang.foreign.MemorySegment;
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
 * The control path's cost against the number of live objects: one operation is {@code dat_lmr_create} and
 * {@code dat_lmr_free} of a page while {@code live} other LMRs stay registered on the same IA ({@code max_lmrs} is
 * 4,096 on loopback). The figure must be flat in {@code live}; R11 of issue 24 measured 7.9 us with none and 264 us
 * with 4,000 live, when every change copied the context tables.
 *
 * <p>Run: {@code java -jar dat.bench/target/benchmarks.jar LmrChurnBenchmark} (on an idle machine). The forks grant
 * loopback native access, as the runtime image does, so registration asks the kernel with one {@code madvise}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class LmrChurnBenchmark {

    /** How many other LMRs are registered while the measured one comes and goes. */
    @Param({"0", "1000", "4000"})
    public int live;

    private BenchSession session;
    private MemorySegment page;

    /** Opens the IA and registers {@link #live} pages. */
    @Setup(Level.Trial)
    public void setUp() {
        session = BenchSession.open();
        for (int i = 0; i < live; i++) {
            session.ia.createLmr(session.pz, session.arena.allocate(BenchSession.PAGE, BenchSession.PAGE),
                    DatMemPriv.ALL);
        }
        page = session.arena.allocate(BenchSession.PAGE, BenchSession.PAGE);
    }

    /** Closes the IA (freeing every LMR) and the arena. */
    @TearDown(Level.Trial)
    public void tearDown() {
        session.close();
    }

    /**
     * {@code dat_lmr_create} + {@code dat_lmr_free}.
     *
     * @return the context, so the create is not dead code
     */
    @Benchmark
    public int createAndFree() {
        DatLmr lmr = session.ia.createLmr(session.pz, page, DatMemPriv.ALL);
        int context = lmr.lmrContext();
        lmr.close();
        return context;
    }
}
