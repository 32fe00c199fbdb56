// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.Iov;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Faults: the peer process killed ({@code kill -9}) while sends and RDMA writes are in flight, and an EP freed while
 * another thread posts to it. The survivor must get one DISCONNECTED or BROKEN event, every request it posted must
 * complete exactly once, and nothing may crash or hang.
 */
class OfiFaultTest {

    private static final long CONN_QUAL = 7475;
    private static final int CHUNK = 16 * 1024;
    private static final int DEPTH = 32;

    @Test
    void peerKilledMidTransferEndsTheConnectionAndCompletesEveryRequestOnce() throws Exception {
        peerKilledMidTransfer(OfiTcpVerification.IA, CONN_QUAL, false);
    }

    /**
     * The peer process killed mid-transfer on {@code iaName}: the survivor gets one DISCONNECTED or BROKEN event and
     * every request it posted completes once (also {@link OfiShmDataTest}'s, over an RDM association).
     *
     * @param quiesceFirst kill the peer only once none of its threads is inside libfabric (it holds its IA's lock,
     *     {@link OfiFaultVictim}): on shm a process killed inside libfabric can leave a spinlock of the survivor's
     *     shared region held, and the survivor then spins in {@code pthread_spin_lock} for ever (docs/ofi.md, "Open";
     *     seen in this test). The survivor's requests are in flight either way: the peer stopped taking them.
     */
    static void peerKilledMidTransfer(String iaName, long connQual, boolean quiesceFirst) throws Exception {
        Process victim = ChildJvm.start(OfiFaultVictim.class, Long.toString(connQual), iaName);
        try (Arena arena = Arena.ofShared();
             DatIa ia = new OfiProvider().open(iaName, "", 16)) {
            BufferedReader out = new BufferedReader(new InputStreamReader(victim.getInputStream(),
                    StandardCharsets.UTF_8));
            assertEquals("listening", out.readLine());
            DatPz pz = ia.createPz();
            DatEvd requests = ia.createEvd(4 * DEPTH, null, DatEvdFlags.DTO);
            DatEvd conn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
            MemorySegment region = arena.allocate(1 << 20, 4096);
            DatLmr lmr = ia.createLmr(pz, region, DatMemPriv.ALL);
            DatEp ep = ia.createEp(pz, null, requests, conn, DatEpAttr.builder().maxRequestDtos(DEPTH).build());
            ep.connect(InetAddress.getLoopbackAddress(), connQual, 10_000_000, null, DatQos.BEST_EFFORT, 0);
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, conn.await(10_000_000, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
            String[] ready = out.readLine().split(" ", -1);
            int rmr = Integer.parseInt(ready[1]);
            long target = Long.parseLong(ready[2]);
            Iov iov = Iov.allocate(arena, 1);
            BitSet completed = new BitSet();
            int posted = 0;
            int outstanding = 0;
            boolean killed = false;
            boolean ended = false;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!ended && System.nanoTime() < deadline) {
                while (outstanding < DEPTH) {
                    iov.set(0, lmr, (long) (posted % 64) * CHUNK, CHUNK);
                    int rc = posted % 2 == 0 ? ep.postSend(1, iov, posted, 0)
                            : ep.postRdmaWrite(1, iov, posted, rmr, target + (long) (posted % 64) * CHUNK, CHUNK, 0);
                    if (rc != DatReturn.DAT_SUCCESS) {
                        break;
                    }
                    posted++;
                    outstanding++;
                }
                if (!killed && posted > 200) {
                    if (quiesceFirst) {
                        victim.getOutputStream().write("quiesce\n".getBytes(StandardCharsets.UTF_8));
                        victim.getOutputStream().flush();
                        assertEquals("quiet", out.readLine());
                    }
                    victim.destroyForcibly();
                    killed = true;
                }
                while (requests.dequeue(e) == DatReturn.DAT_SUCCESS) {
                    int cookie = (int) e.userCookie();
                    assertTrue(!completed.get(cookie), "cookie " + cookie + " completed twice");
                    completed.set(cookie);
                    outstanding--;
                }
                if (conn.dequeue(e) == DatReturn.DAT_SUCCESS) {
                    assertTrue(e.type() == DatEventType.CONNECTION_EVENT_DISCONNECTED
                            || e.type() == DatEventType.CONNECTION_EVENT_BROKEN, "event " + e.type());
                    ended = true;
                }
                Thread.onSpinWait();
            }
            assertTrue(killed && ended, "killed " + killed + ", the connection's end reported " + ended);
            long drainUntil = System.nanoTime() + 10_000_000_000L;
            while (outstanding > 0 && System.nanoTime() < drainUntil) {
                if (requests.await(1_000_000, 1, e) == DatReturn.DAT_SUCCESS) {
                    int cookie = (int) e.userCookie();
                    assertTrue(!completed.get(cookie), "cookie " + cookie + " completed twice");
                    completed.set(cookie);
                    outstanding--;
                }
            }
            assertEquals(0, outstanding, "requests never completed");
            assertEquals(posted, completed.cardinality(), "every posted request completed once");
            assertSame(DatEpState.DISCONNECTED, ep.state());
            assertEquals(DatReturn.DAT_QUEUE_EMPTY, conn.dequeue(e), "one end event only");
            iov.set(0, lmr, 0, 64);
            assertEquals(DatReturn.DAT_SUCCESS, ep.postSend(1, iov, 999_999, 0), "a post after the end");
            assertEquals(DatReturn.DAT_SUCCESS, requests.await(5_000_000, 1, e));
            assertSame(DatDtoStatus.FLUSHED, e.dtoStatus());
            ep.close();
            lmr.close();
            requests.close();
            conn.close();
            pz.close();
        } finally {
            victim.destroyForcibly();
        }
    }

    @Test
    void freeingAnEpWhileAnotherThreadPostsNeverCrashesOrThrows() throws Exception {
        try (Arena arena = Arena.ofShared();
             DatIa ia = new OfiProvider().open(OfiTcpVerification.IA, "", 16)) {
            DatPz pz = ia.createPz();
            DatEvd evd = ia.createEvd(4096, null, DatEvdFlags.DTO | DatEvdFlags.CONNECTION | DatEvdFlags.CR);
            MemorySegment region = arena.allocate(1 << 16, 4096);
            DatLmr lmr = ia.createLmr(pz, region, DatMemPriv.ALL);
            DatEp active = ia.createEp(pz, evd, evd, evd, DatEpAttr.builder().build());
            DatEp passive = ia.createEp(pz, evd, evd, evd, DatEpAttr.builder().build());
            var psp = ia.createPspAny(evd, DatPspFlags.CONSUMER);
            active.connect(ia.address(), psp.query().connQual(), 10_000_000, null, DatQos.BEST_EFFORT, 0);
            DatEvent e = new DatEvent();
            int established = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (established < 2 && System.nanoTime() < deadline) {
                if (evd.await(1_000_000, 1, e) == DatReturn.DAT_SUCCESS) {
                    if (e.type() == DatEventType.CONNECTION_REQUEST_EVENT) {
                        e.cr().accept(passive, null);
                    } else if (e.type() == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
                        established++;
                    }
                }
            }
            assertEquals(2, established);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger lastRc = new AtomicInteger();
            List<Throwable> thrown = new ArrayList<>();
            Iov iov = Iov.allocate(arena, 1);
            iov.set(0, lmr, 0, 256);
            Thread poster = Thread.ofPlatform().start(() -> {
                try {
                    while (!stop.get()) {
                        lastRc.set(active.postSend(1, iov, 1, 0));
                        evd.dequeue(new DatEvent());
                    }
                } catch (Throwable t) {
                    synchronized (thrown) {
                        thrown.add(t);
                    }
                }
            });
            Thread.sleep(50);
            active.disconnect(DatCloseFlags.ABRUPT);
            active.close();
            Thread.sleep(50);
            stop.set(true);
            poster.join(10_000);
            assertEquals(List.of(), thrown, "a post threw");
            assertEquals(DatReturn.DAT_INVALID_HANDLE, lastRc.get(), "posts to a freed EP");
            passive.disconnect(DatCloseFlags.ABRUPT);
            while (evd.dequeue(e) == DatReturn.DAT_SUCCESS) {
                assertTrue(e.type() != null);
            }
            passive.close();
            psp.close();
            lmr.close();
            evd.close();
            pz.close();
        }
    }

}
