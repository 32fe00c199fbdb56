// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one uncontended ordering instruction costs on this machine, one thread, no sharing: the unit in which the
 * thread-safe provider path ({@link SingleThreadLatencyBenchmark}) is priced. On x86 a plain or release store and
 * an acquire load compile to plain moves; a volatile store, a CAS and an atomic add each drain the store buffer
 * (a {@code lock}-prefixed instruction). The loopback provider's {@code rdmaWrite} operation of that benchmark makes
 * five of them (send lock, event claim, send unlock, event take, request slot release) and {@code sendRecv} ten, so
 * {@code fences x volatileStore} is the floor of a provider that any thread may call at any time.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class FenceCostBenchmark {

    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(FenceCostBenchmark.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long word;
    private final ReentrantLock lock = new ReentrantLock();

    /** {@return the new value: the baseline, a plain increment} */
    @Benchmark
    public long plainStore() {
        long v = word + 1;
        word = v;
        return v;
    }

    /** {@return the new value, stored with release semantics (a plain move on x86)} */
    @Benchmark
    public long releaseStore() {
        long v = (long) WORD.getOpaque(this) + 1;
        WORD.setRelease(this, v);
        return v;
    }

    /** {@return the new value, stored as a volatile write (a store, then a full fence)} */
    @Benchmark
    public long volatileStore() {
        long v = (long) WORD.getOpaque(this) + 1;
        WORD.setVolatile(this, v);
        return v;
    }

    /** {@return the new value, after a successful compare-and-set} */
    @Benchmark
    public long compareAndSet() {
        long v = (long) WORD.getOpaque(this);
        return WORD.compareAndSet(this, v, v + 1) ? v + 1 : v;
    }

    /** {@return the value before an atomic add} */
    @Benchmark
    public long getAndAdd() {
        return (long) WORD.getAndAdd(this, 1L);
    }

    /** {@return the new value, incremented under an uncontended {@link ReentrantLock} (a CAS and a volatile store)} */
    @Benchmark
    public long lockUnlock() {
        lock.lock();
        try {
            long v = word + 1;
            word = v;
            return v;
        } finally {
            lock.unlock();
        }
    }
}
