// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The races of {@link RecvRing}'s memory-ordering arguments (see its class comment), one poster against one deliverer
 * as the EP's recv lock and the peer's send lock arrange them.
 */
public final class RecvRingStress {

    private RecvRingStress() {
    }

    /** What a poster does under the recv lock. */
    static boolean post(RecvRing ring, long cookie) {
        Dto d = ring.postSlot();
        if (ring.full()) {
            return false;
        }
        ring.setCookie(cookie);
        d.total = cookie;
        ring.publish();
        return true;
    }

    /**
     * Publication: a deliverer that sees the new tail sees every field the poster wrote into the slot before it
     * (release store of tail, acquire load of it).
     */
    @JCStressTest
    @Description("A delivery that finds a posted receive sees its descriptor and its cookie whole.")
    @Outcome(id = "-1, -1", expect = ACCEPTABLE, desc = "The receive is not visible yet: the ring looks empty.")
    @Outcome(id = "42, 42", expect = ACCEPTABLE, desc = "The receive, its cookie and all its fields are visible.")
    @Outcome(expect = FORBIDDEN, desc = "The tail was visible before the fields or the cookie it publishes.")
    @State
    public static class Publication {
        final RecvRing ring = new RecvRing(4, 1);

        @Actor
        public void poster() {
            post(ring, 42);
        }

        @Actor
        public void deliverer(JJ_Result r) {
            Dto d = ring.claim();
            if (d == null) {
                r.r1 = -1;
                r.r2 = -1;
            } else {
                r.r2 = d.total;
                // The consumer's read, here on the deliverer's thread: what the completion's publication hands on.
                r.r1 = ring.cookieAt(ring.finish());
            }
        }
    }

    /**
     * The wake-up (a Dekker pattern): the poster publishes and then reads the sender's mark; the sender sets the
     * mark and then reads the tail again. Both stores are volatile, so at least one side sees the other's store and
     * a waiting send is never stranded.
     */
    @JCStressTest
    @Description("A send that found no receive and a receive posted at the same time: one of them runs the send.")
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "Both saw each other.")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "The poster saw the mark and runs the send.")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "The sender saw the receive and delivers.")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "Neither saw the other: the send waits forever.")
    @State
    public static class WakeUp {
        final RecvRing ring = new RecvRing(4, 1);
        volatile boolean recvWanted;

        @Actor
        public void poster(ZZ_Result r) {
            post(ring, 7);
            r.r1 = recvWanted;
        }

        @Actor
        public void sender(ZZ_Result r) {
            recvWanted = true;
            r.r2 = ring.published();
        }
    }

    /**
     * Descriptor reuse: with one slot, a poster may refill it only after the slot was freed (release store of
     * {@code done}, acquire load of it), here by the deliverer itself as for a suppressed receive, so the deliverer
     * always reads the receive it claimed, never the next one.
     */
    @JCStressTest
    @Description("A receive's descriptor is refilled only after its delivery finished reading it and freed the slot.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "The refill waited for the delivery.")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "The slot was not free yet: the post was refused.")
    @Outcome(expect = FORBIDDEN, desc = "The delivery read a refilled or torn slot.")
    @State
    public static class SlotReuse {
        final RecvRing ring = new RecvRing(1, 1);

        public SlotReuse() {
            post(ring, 1);
        }

        @Actor
        public void deliverer(JJ_Result r) {
            Dto d = ring.claim();
            r.r1 = d == null ? -1 : d.total;
            if (d != null) {
                ring.release(ring.finish());
            }
        }

        @Actor
        public void poster(JJ_Result r) {
            r.r2 = post(ring, 2) ? 1 : 0;
        }
    }

    /**
     * Cookie reuse, with frees out of order: position 1 (a suppressed receive) was freed at its delivery while position
     * 0's completion still waits for its consumer. The poster may refill nothing until the consumer has read position
     * 0's cookie and freed it (release store of {@code done}, acquire load of it): a count of frees would let it refill
     * slot 0 under that read. (The in-order case, one slot, was a test of its own: this one covers it, and CI's
     * jcstress run grows by one test instead of two.)
     */
    @JCStressTest
    @Description("A slot freed out of order does not free the earlier slot whose completion is still unreaped.")
    @Outcome(id = "10, 0", expect = ACCEPTABLE, desc = "The posts came before the consumer freed position 0.")
    @Outcome(id = "10, 1", expect = ACCEPTABLE, desc = "The second post saw position 0 freed.")
    @Outcome(id = "10, 2", expect = ACCEPTABLE, desc = "Both posts saw positions 0 and 1 freed.")
    @Outcome(expect = FORBIDDEN, desc = "The consumer read a cookie posted after its receive.")
    @State
    public static class OutOfOrderFree {
        final RecvRing ring = new RecvRing(2, 1);

        public OutOfOrderFree() {
            post(ring, 10);
            post(ring, 11);
            ring.claim();
            ring.finish();
            ring.claim();
            ring.release(ring.finish());
        }

        @Actor
        public void consumer(JJ_Result r) {
            r.r1 = ring.cookieAt(0);
            ring.release(0);
        }

        @Actor
        public void poster(JJ_Result r) {
            int posted = 0;
            posted += post(ring, 12) ? 1 : 0;
            posted += post(ring, 13) ? 1 : 0;
            r.r2 = posted;
        }
    }
}
