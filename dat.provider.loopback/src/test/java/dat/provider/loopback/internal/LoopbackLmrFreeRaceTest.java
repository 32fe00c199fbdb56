// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatLmr;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * dat_lmr_free returns only when no transfer moves another byte into the region: a 1 MiB delivery (send into a
 * receive, or RDMA write) racing the free either finishes before the free returns or fails. (Regression: 6 of
 * 800 races wrote 188,800 bytes into the region after the free had returned.)
 */
class LoopbackLmrFreeRaceTest {

    private static final int MESSAGE = 1024 * 1024;
    private static final int SLOTS = 4;

    @Test
    void noSendLandsAfterTheFreeReturned() throws Exception {
        race(false);
    }

    @Test
    void noRdmaWriteLandsAfterTheFreeReturned() throws Exception {
        race(true);
    }

    private static void race(boolean rdma) throws Exception {
        int late = 0;
        AtomicInteger posted = new AtomicInteger();
        for (int round = 0; round < 100; round++) {
            try (Loop a = new Loop(); Loop b = new Loop()) {
                DatEpAttr attr = DatEpAttr.builder().maxMessageSize(MESSAGE).maxRdmaSize(MESSAGE).build();
                DatEp sender = a.ep(attr);
                DatEp receiver = b.ep(attr);
                a.connect(sender, b, receiver);
                DatLmr target = b.lmr((long) MESSAGE * SLOTS);
                DatLmr source = a.lmr(MESSAGE);
                Iov one = b.iov(1);
                if (!rdma) {
                    for (int i = 0; i < SLOTS; i++) {
                        assertEquals(DatReturn.DAT_SUCCESS,
                                receiver.postRecv(1, one.set(0, target, (long) i * MESSAGE, MESSAGE), i, 0));
                    }
                }
                Iov src = a.iov(1).set(0, source, 0, MESSAGE);
                AtomicBoolean stop = new AtomicBoolean();
                CountDownLatch started = new CountDownLatch(1);
                Thread writer = Thread.ofPlatform().start(() -> {
                    started.countDown();
                    for (int i = 0; i < SLOTS && !stop.get(); i++) {
                        source.segment().fill((byte) (i + 1));
                        int rc = rdma
                                ? sender.postRdmaWrite(1, src, i, target.rmrContext(),
                                        target.address() + (long) i * MESSAGE, MESSAGE, 0)
                                : sender.postSend(1, src, i, 0);
                        if (rc != DatReturn.DAT_SUCCESS) {
                            return;
                        }
                        posted.incrementAndGet();
                        Loop.drainAll(a.requestEvd);
                    }
                });
                Waits.await(started, "the writer to start");
                long spin = ThreadLocalRandom.current().nextLong(400_000);
                for (long s = System.nanoTime(); System.nanoTime() - s < spin; ) {
                    Thread.onSpinWait();
                }
                target.close();
                MemorySegment region = target.segment();
                byte[] atFree = region.toArray(ValueLayout.JAVA_BYTE);
                stop.set(true);
                Waits.join(writer, "the writer, told to stop");
                long changed = region.mismatch(MemorySegment.ofArray(atFree));
                late += changed >= 0 ? 1 : 0;
            }
        }
        assertTrue(posted.get() > 30, "transfers raced the frees: " + posted);
        assertEquals(0, late, "rounds in which bytes landed after dat_lmr_free returned");
    }
}
