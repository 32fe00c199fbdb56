// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dat.api.DatDtoStatus;
import dat.api.DatEvent;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The races of {@link EventRing}'s arguments (see its class comment): producers claiming and publishing against
 * consumers taking, and the one overflow report per episode.
 */
public final class EventRingStress {

    private EventRingStress() {
    }

    static void produce(EventRing ring, long cookie) {
        long t = ring.claim(true);
        if (t >= 0) {
            ring.fillDto(t, null, cookie, DatDtoStatus.SUCCESS, cookie * 10);
            ring.publish(t, false, null);
        }
    }

    /** {@return the cookie taken, -1 when the ring was empty, -2 when the event's fields were not the producer's} */
    static long consume(EventRing ring) {
        DatEvent e = new DatEvent();
        Reaper taken = ring.take(e);
        if (taken == EventRing.EMPTY) {
            return -1;
        }
        return e.transferredLength() == e.userCookie() * 10 && e.dtoStatus() == DatDtoStatus.SUCCESS
                ? e.userCookie() : -2;
    }

    /** A producer and a consumer: the event is taken exactly once, whole (release publish, acquire take). */
    @JCStressTest
    @Description("A producer publishes while a consumer takes; what is left is taken after.")
    @Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "The consumer came first; the event remains.")
    @Outcome(id = "1, -1", expect = ACCEPTABLE, desc = "The consumer took it whole.")
    @Outcome(expect = FORBIDDEN, desc = "The event lost, taken twice, or taken before its fields were visible.")
    @State
    public static class ProducerAndConsumer {
        final EventRing ring = new EventRing(null, 4);

        @Actor
        public void producer() {
            produce(ring, 1);
        }

        @Actor
        public void consumer(JJ_Result r) {
            r.r1 = consume(ring);
        }

        @Arbiter
        public void rest(JJ_Result r) {
            r.r2 = consume(ring);
        }
    }

    /** Two producers: each claims its own position (the tail CAS), neither overwrites the other. */
    @JCStressTest
    @Description("Two producers publish at once; both events are there after, each once.")
    @Outcome(id = {"1, 2", "2, 1"}, expect = ACCEPTABLE, desc = "Both events, in the order they claimed.")
    @Outcome(expect = FORBIDDEN, desc = "An event lost or duplicated.")
    @State
    public static class TwoProducers {
        final EventRing ring = new EventRing(null, 4);

        @Actor
        public void producer1() {
            produce(ring, 1);
        }

        @Actor
        public void producer2() {
            produce(ring, 2);
        }

        @Arbiter
        public void after(JJ_Result r) {
            r.r1 = consume(ring);
            r.r2 = consume(ring);
        }
    }

    /** Two consumers of two queued events: each takes a different one (the head CAS decides), never the same. */
    @JCStressTest
    @Description("Two consumers race for two queued events.")
    @Outcome(id = {"1, 2", "2, 1"}, expect = ACCEPTABLE, desc = "Each took one.")
    @Outcome(expect = FORBIDDEN, desc = "An event taken twice, or one missed while it was queued.")
    @State
    public static class TwoConsumers {
        final EventRing ring = new EventRing(null, 4);

        public TwoConsumers() {
            produce(ring, 1);
            produce(ring, 2);
        }

        @Actor
        public void consumer1(JJ_Result r) {
            r.r1 = consume(ring);
        }

        @Actor
        public void consumer2(JJ_Result r) {
            r.r2 = consume(ring);
        }
    }

    /** Two producers find the ring full: exactly one of them reports the overflow (DAT_EVD_OVERFLOW once). */
    @JCStressTest
    @Description("Two producers overflow a full ring at once.")
    @Outcome(id = {"-2, -1", "-1, -2"}, expect = ACCEPTABLE, desc = "One reports the overflow, one does not.")
    @Outcome(expect = FORBIDDEN, desc = "The overflow reported twice or not at all.")
    @State
    public static class OneOverflowReport {
        final EventRing ring = new EventRing(null, 1);

        public OneOverflowReport() {
            produce(ring, 1);
        }

        @Actor
        public void producer1(JJ_Result r) {
            r.r1 = ring.claim(true);
        }

        @Actor
        public void producer2(JJ_Result r) {
            r.r2 = ring.claim(true);
        }
    }
}
