// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatEpAttr;
import dat.api.DatException;
import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.api.DatSrqAttr;
import dat.api.DatSrqParam;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * The shell owns the SRQ's lock and the re-check under it: an SRQ whose {@code implResize} and
 * {@code implSetLowWatermark} take no lock of their own still never runs one on a freed SRQ, however a free races
 * them. Before the shell took the lock, each provider re-checked under its own, and one that forgot resized queues
 * it had already released, a race no rule of the kit can reliably catch from outside.
 */
class AbstractSrqRaceTest {

    private static final int ROUNDS = 200;
    private static final int THREADS = 3;

    /** An SRQ that locks nothing itself and counts hook runs that came after its release. */
    private static final class CarelessSrq extends AbstractSrq<TestIa, AbstractPz<TestIa>> {
        private volatile boolean released;
        final AtomicInteger hooks = new AtomicInteger();
        final AtomicInteger hooksAfterFree = new AtomicInteger();

        CarelessSrq(AbstractPz<TestIa> pz, int maxRecvDtos) {
            super(pz, maxRecvDtos, 1);
        }

        private void hook() {
            hooks.incrementAndGet();
            if (released) {
                hooksAfterFree.incrementAndGet();
            }
            // Stay a while, so a free that did not wait for the hook would release the SRQ under it.
            long until = System.nanoTime() + 2_000;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
            if (released) {
                hooksAfterFree.incrementAndGet();
            }
        }

        @Override
        protected void implDestroy() {
            released = true;
        }

        @Override
        protected int outstandingBuffers() {
            return 0;
        }

        @Override
        protected void implResize(int srqMaxRecvDto) {
            hook();
        }

        @Override
        protected boolean implSetLowWatermark(int lowWatermark) {
            hook();
            return false;
        }

        @Override
        protected void lowWatermarkEvent() {
        }

        @Override
        public int postRecv(int numSegments, Iov localIov, long userCookie) {
            return DatReturn.DAT_SUCCESS;
        }

        @Override
        public DatSrqParam query() {
            throw new UnsupportedOperationException();
        }
    }

    /** An IA that creates PZs and careless SRQs, and nothing else. */
    private static final class TestIa extends AbstractIa<TestIa, AbstractPz<TestIa>, AbstractEvd<TestIa>, CarelessSrq,
            AbstractEp<TestIa>> {

        TestIa() {
            super("race0", InetAddress.getLoopbackAddress(),
                    DatProviderAttr.builder().providerName("race").srqSupported(true).build(),
                    DatIaAttr.builder().maxPzs(4).maxSrqs(4).maxRecvPerSrq(64).maxIovSegmentsPerDto(1).build(),
                    new ReentrantLock());
        }

        @Override
        protected AbstractPz<TestIa> implCreatePz() {
            return new AbstractPz<>(this) {
            };
        }

        @Override
        protected CarelessSrq implCreateSrq(AbstractPz<TestIa> pz, DatSrqAttr attr) {
            return new CarelessSrq(pz, attr.maxRecvDtos());
        }

        @Override
        protected AbstractEvd<TestIa> implCreateEvd(int evdMinQlen, AbstractCno<TestIa> cno, int evdFlags) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected AbstractLmr<TestIa, AbstractPz<TestIa>> implCreateLmr(AbstractPz<TestIa> pz, MemorySegment region,
                                                                        int privileges) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected AbstractLmr<TestIa, ?> lmrOf(int lmrContext) {
            return null;
        }

        @Override
        protected AbstractEp<TestIa> implCreateEp(String call, AbstractPz<TestIa> pz, AbstractEvd<TestIa> recvEvd,
                                                  AbstractEvd<TestIa> requestEvd, AbstractEvd<TestIa> connectEvd,
                                                  CarelessSrq srq, DatEpAttr attr) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected AbstractPsp<TestIa, AbstractEvd<TestIa>> implCreatePsp(String call, boolean any, long connQual,
                                                                         AbstractEvd<TestIa> crEvd,
                                                                         DatPspFlags flags) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected AbstractRsp<TestIa, AbstractEvd<TestIa>, AbstractEp<TestIa>> implCreateRsp(
                String call, long connQual, AbstractEp<TestIa> ep, AbstractEvd<TestIa> crEvd) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void noResizeOrLowWatermarkHookRunsOnAFreedSrq() throws InterruptedException {
        TestIa ia = new TestIa();
        var pz = ia.createPz();
        int hooks = 0;
        for (int round = 0; round < ROUNDS; round++) {
            CarelessSrq srq = (CarelessSrq) ia.createSrq(pz, DatSrqAttr.of(8, 1));
            CountDownLatch started = new CountDownLatch(THREADS);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> unexpected = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int which = t;
                threads.add(Thread.ofPlatform().start(() -> {
                    started.countDown();
                    try {
                        for (int i = 0; ; i++) {
                            if (which == 0) {
                                srq.setLowWatermark(i % 2);
                            } else {
                                srq.resize(8 + i % 8);
                            }
                        }
                    } catch (DatException e) {
                        if (e.type() != DatReturn.INVALID_HANDLE) {
                            synchronized (unexpected) {
                                unexpected.add(e);
                            }
                        }
                    }
                }));
            }
            started.await();
            srq.close();
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(List.of(), unexpected, "round " + round);
            assertEquals(0, srq.hooksAfterFree.get(), "round " + round + ": hooks that ran on the freed SRQ");
            assertTrue(srq.isClosed(), "round " + round);
            hooks += srq.hooks.get();
        }
        // The race was run, not skipped: the racing calls reached their hooks before the frees.
        assertTrue(hooks > 0, "no hook ran in " + ROUNDS + " rounds");
        pz.close();
        ia.close();
    }
}
