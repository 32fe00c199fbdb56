// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static dat.tck.rules.TckFixture.assertSameBytes;
import static dat.tck.rules.TckFixture.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * Rules every post call shares ({@code dat_ep_post_send}, {@code dat_ep_post_recv}, {@code dat_ep_post_rdma_read},
 * {@code dat_ep_post_rdma_write}, {@code dat_srq_post_recv}): what they do with the consumer's IOV, how deep their
 * queues are, and what UNSIGNALLED leaves of a successful request. Each rule runs every call it applies to, so a
 * provider that checks one post and not its neighbours is caught.
 */
public abstract class PostCallRules extends RuleSupport {

    /**
     * @param env the provider under test
     */
    protected PostCallRules(TckEnvironment env) {
        super(env);
    }

    /** One post call, with the IOV limit of the queue it posts to. */
    private record Post(String call, int maxSegments, PostCall post) {
    }

    /** A post with its IOV and segment count given. */
    @FunctionalInterface
    private interface PostCall {
        int post(int numSegments, Iov iov);
    }

    /**
     * Every post call on a connected pair (and an SRQ when the provider has one), aimed at valid memory: only the
     * IOV and the segment count a rule passes can make one fail.
     */
    private List<Post> everyPost(Connection c, DatSrq srq, Region remote) {
        DatEp ep = c.active().ep();
        DatEpAttr attr = ep.query().epAttr();
        List<Post> posts = new ArrayList<>();
        posts.add(new Post("dat_ep_post_send", attr.maxRequestIov(), (n, iov) -> ep.postSend(n, iov, 1, 0)));
        posts.add(new Post("dat_ep_post_recv", attr.maxRecvIov(), (n, iov) -> ep.postRecv(n, iov, 2, 0)));
        posts.add(new Post("dat_ep_post_rdma_write", attr.maxRdmaWriteIov(), (n, iov) -> ep.postRdmaWrite(n, iov, 3,
                remote.lmr().rmrContext(), remote.address(), 64, 0)));
        if (attr.maxRdmaReadOut() > 0) {
            posts.add(new Post("dat_ep_post_rdma_read", attr.maxRdmaReadIov(), (n, iov) -> ep.postRdmaRead(n, iov, 4,
                    remote.lmr().rmrContext(), remote.address(), 64, 0)));
        }
        if (srq != null) {
            posts.add(new Post("dat_srq_post_recv", srq.query().maxRecvIov(), (n, iov) -> srq.postRecv(n, iov, 5)));
        }
        return posts;
    }

    /** {@return an SRQ taking up to 4 segments a buffer, or {@code null} when the provider has none} */
    private DatSrq srqIfAny() {
        if (!f.provider.srqSupported() || f.limits.maxSrqs() == 0) {
            return null;
        }
        return f.ia.createSrq(f.pz, new DatSrqAttr(8, Math.min(4, f.limits.maxIovSegmentsPerDto()),
                Dat.DAT_SRQ_LW_DEFAULT));
    }

    /** Runs one post, turning anything it throws into the rule's failure: the data path returns a status. */
    private static int status(IntSupplier post, String what) {
        try {
            return post.getAsInt();
        } catch (RuntimeException | Error e) {
            return fail(what + " threw " + e + " instead of returning a status", e);
        }
    }

    /**
     * PARAMETERS: "num_segments Number of lmr_triplets in local_iov" and "local_iov I/O Vector that specifies the
     * local buffer": a count within the queue's IOV limit that names more triplets than the consumer's IOV holds
     * points past the consumer's vector; every post call answers DAT_INVALID_PARAMETER (the data path never throws)
     * and the queue takes nothing.
     * If this fails, bound num_segments by the IOV's own capacity, not only by the queue's limit, in every post.
     */
    @Test
    @DatRule(call = "dat_ep_post_send", section = "PARAMETERS",
            rule = "every post: num_segments beyond the consumer's IOV is refused",
            returns = DatReturn.INVALID_PARAMETER)
    void required_ep_post_send_everyPostRefusesSegmentsBeyondTheIov() {
        Connection c = f.connect();
        DatSrq srq = srqIfAny();
        Region local = f.region();
        Region remote = f.region();
        int checked = 0;
        for (Post p : everyPost(c, srq, remote)) {
            // The IOV holds k triplets, the post names k + 1: from one too many for a single triplet to the limit.
            for (int capacity : new int[] {1, p.maxSegments() - 1}) {
                if (capacity < 1 || capacity + 1 > p.maxSegments()) {
                    continue;
                }
                Iov iov = f.iov(capacity);
                for (int i = 0; i < capacity; i++) {
                    iov.set(i, local.lmr(), 16L * i, 16);
                }
                String what = p.call() + " of " + (capacity + 1) + " segments (the queue takes " + p.maxSegments()
                        + ") with an IOV of " + capacity;
                assertStatus(DatReturn.DAT_INVALID_PARAMETER, status(() -> p.post().post(capacity + 1, iov), what),
                        what);
                checked++;
            }
        }
        applicableIf(checked > 0, "no queue takes more than one segment a DTO (max_iov_segments_per_dto = "
                + f.limits.maxIovSegmentsPerDto() + ")");
        noCompletions(c, "after posts refused for their segment count");
    }

    /**
     * DESCRIPTION of every post: the provider reads local_iov on the consumer's call. An IOV the posting thread may
     * not read (its memory closed, or confined to another thread) is an invalid parameter: every post call answers
     * DAT_INVALID_PARAMETER and throws nothing.
     * If this fails, check that the post reads the IOV only once it knows the calling thread may (a closed or
     * foreign-confined segment throws in Java), in every post.
     *
     * @throws InterruptedException when interrupted while the other thread posts
     */
    @Test
    @DatRule(call = "dat_ep_post_send", section = "DESCRIPTION",
            rule = "every post: an IOV the thread may not read is refused", returns = DatReturn.INVALID_PARAMETER)
    void required_ep_post_send_everyPostRefusesAnIovItCannotRead() throws InterruptedException {
        Connection c = f.connect();
        DatSrq srq = srqIfAny();
        Region local = f.region();
        Region remote = f.region();
        List<Post> posts = everyPost(c, srq, remote);
        Iov closed;
        try (Arena arena = Arena.ofShared()) {
            closed = Iov.allocate(arena, 1).set(0, local.lmr(), 0, 64);
        }
        for (Post p : posts) {
            String what = p.call() + " with an IOV whose arena is closed";
            assertStatus(DatReturn.DAT_INVALID_PARAMETER, status(() -> p.post().post(1, closed), what), what);
        }
        try (Arena confined = Arena.ofConfined()) {
            Iov mine = Iov.allocate(confined, 1).set(0, local.lmr(), 0, 64);
            for (Post p : posts) {
                String what = p.call() + " from another thread of an IOV confined to the rule's thread";
                CompletableFuture<Integer> other = CompletableFuture.supplyAsync(
                        () -> status(() -> p.post().post(1, mine), what));
                assertStatus(DatReturn.DAT_INVALID_PARAMETER, bounded(other, what), what);
            }
        }
        noCompletions(c, "after posts refused for their IOV");
    }

    private int bounded(CompletableFuture<Integer> call, String what) throws InterruptedException {
        try {
            return call.get(f.eventTimeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return fail(what + " did not return within " + f.eventTimeoutMillis() + " ms");
        } catch (ExecutionException e) {
            return fail(what + ": " + e.getCause(), e.getCause());
        }
    }

    private void noCompletions(Connection c, String why) {
        f.noEventNow(c.active().requestEvd(), why + ": the active side's request EVD");
        f.noEventNow(c.active().recvEvd(), why + ": the active side's receive EVD");
    }

    /**
     * DESCRIPTION of dat_ep_post_recv, dat_ep_post_send, dat_ep_post_rdma_*: a post beyond the queue's depth is
     * DAT_INSUFFICIENT_RESOURCES, and the depth is what dat_ep_query (dat_srq_query for an SRQ) reports: filling the
     * EP's receive queue, its request queue (each request kind tried at the full queue) and an SRQ to the reported
     * depth succeeds, the next post is refused, and exactly the posted cookies complete, each once.
     * If this fails, the queue holds more or fewer than the attribute it reports, or a post past it was accepted and
     * lost (or completed twice).
     */
    @Test
    @DatRule(call = "dat_ep_post_recv", section = "RETURN VALUES",
            rule = "every queue holds exactly the depth its query reports",
            returns = {DatReturn.INSUFFICIENT_RESOURCES, DatReturn.SUCCESS})
    void required_ep_post_recv_everyQueueHoldsExactlyItsReportedDepth() {
        Connection c = f.connect();
        Region buffers = f.region(64L * 1024, DatMemPriv.ALL);
        Region src = f.region();
        int recvDepth = c.passive().ep().query().epAttr().maxRecvDtos();
        applicableIf(recvDepth <= 1 << 10, "receive queue of " + recvDepth + " is too deep to fill");
        Iov iov = f.iov(1);
        for (int i = 0; i < recvDepth; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, c.passive().ep().postRecv(1, iov.set(0, buffers.lmr(), 64L * i, 64), i,
                    0), "dat_ep_post_recv " + (i + 1) + " of max_recv_dtos " + recvDepth);
        }
        assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES, c.passive().ep().postRecv(1,
                iov.set(0, buffers.lmr(), 0, 64), recvDepth, 0), "dat_ep_post_recv number " + (recvDepth + 1)
                + " with max_recv_dtos " + recvDepth + " posted");
        int delivered = recvDepth / 2;
        for (int i = 0; i < delivered; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), i, 0),
                    "dat_ep_post_send " + i);
            f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        }
        c.passive().ep().disconnect(DatCloseFlags.ABRUPT);
        assertExactlyCompleted(c.passive().recvEvd(), recvDepth, "the receives of a full receive queue");

        Connection d = f.connect();
        int requestDepth = d.active().ep().query().epAttr().maxRequestDtos();
        applicableIf(requestDepth <= 1 << 10, "request queue of " + requestDepth + " is too deep to fill");
        Region remote = f.region();
        for (int i = 0; i < requestDepth; i++) {
            // No receive waits at the peer: every send stays outstanding.
            assertStatus(DatReturn.DAT_SUCCESS, d.active().ep().postSend(1, iov.set(0, src.lmr(), 0, 8), i, 0),
                    "dat_ep_post_send " + (i + 1) + " of max_request_dtos " + requestDepth);
        }
        DatEp full = d.active().ep();
        assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES, full.postSend(1, iov.set(0, src.lmr(), 0, 8), -1, 0),
                "dat_ep_post_send on a full request queue of " + requestDepth);
        assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES, full.postRdmaWrite(1, iov.set(0, src.lmr(), 0, 8), -2,
                remote.lmr().rmrContext(), remote.address(), 8, 0), "dat_ep_post_rdma_write on a full request queue");
        if (full.query().epAttr().maxRdmaReadOut() > 0) {
            assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES, full.postRdmaRead(1, iov.set(0, src.lmr(), 64, 8), -3,
                    remote.lmr().rmrContext(), remote.address(), 8, 0),
                    "dat_ep_post_rdma_read on a full request queue");
        }
        Region into = f.region(64L * requestDepth, DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        for (int i = 0; i < requestDepth; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, d.passive().ep().postRecv(1, iov.set(0, into.lmr(), 64L * i, 64), i,
                    0), "dat_ep_post_recv at the peer " + i);
        }
        for (int i = 0; i < requestDepth; i++) {
            assertEquals(i, f.completion(d.active().requestEvd(), DatDtoStatus.SUCCESS).userCookie(),
                    "send completion " + i + " of a full request queue");
        }
        f.quiet(d.active().requestEvd(), "after the " + requestDepth + " sends of a full request queue completed");

        DatSrq srq = srqIfAny();
        if (srq != null) {
            int srqDepth = srq.query().maxRecvDtos();
            applicableIf(srqDepth <= 1 << 10, "SRQ of " + srqDepth + " entries is too large to fill");
            Region srqBuffers = f.region(64L * srqDepth + 64, DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
            for (int i = 0; i < srqDepth; i++) {
                assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, srqBuffers.lmr(), 64L * i, 64), i),
                        "dat_srq_post_recv " + (i + 1) + " of max_recv_dtos " + srqDepth);
            }
            assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES, srq.postRecv(1, iov.set(0, srqBuffers.lmr(),
                    64L * srqDepth, 64), srqDepth), "dat_srq_post_recv on an SRQ full at " + srqDepth);
            Connection e = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
            for (int i = 0; i < srqDepth; i++) {
                assertStatus(DatReturn.DAT_SUCCESS, e.active().ep().postSend(1, iov.set(0, src.lmr(), 0, 8), i, 0),
                        "dat_ep_post_send into the SRQ " + i);
                f.completion(e.active().requestEvd(), DatDtoStatus.SUCCESS);
            }
            assertExactlyCompleted(e.passive().recvEvd(), srqDepth, "the buffers of a full SRQ");
            assertStatus(DatReturn.DAT_SUCCESS, e.active().ep().postSend(1, iov.set(0, src.lmr(), 0, 8), -1, 0),
                    "dat_ep_post_send once the SRQ is empty");
            f.quiet(e.passive().recvEvd(), "a message sent once the full SRQ's " + srqDepth + " buffers were used");
        }
    }

    /** Reaps {@code count} completions of cookies 0..count-1, each exactly once, then asserts nothing follows. */
    private void assertExactlyCompleted(DatEvd evd, int count, String what) {
        TreeSet<Long> seen = new TreeSet<>();
        for (int i = 0; i < count; i++) {
            DatEvent e = f.next(evd);
            assertSame(DatEventType.DTO_COMPLETION, e.type(), what + ": completion " + i);
            if (e.dtoStatus() != DatDtoStatus.SUCCESS && e.dtoStatus() != DatDtoStatus.FLUSHED) {
                fail(what + ": completion " + i + " is " + e);
            }
            if (e.userCookie() < 0 || e.userCookie() >= count || !seen.add(e.userCookie())) {
                fail(what + ": cookie " + e.userCookie() + " was not posted, or completed twice; seen " + seen);
            }
        }
        f.quiet(evd, what + ": after the " + count + " posted cookies completed");
    }

    /**
     * PARAMETERS of every request: "DAT_COMPLETION_UNSIGNALLED_FLAG 0x04 Non-notification completion": the flag
     * withholds the notification (a waiter or CNO is not woken), not the completion. On an EP whose
     * request_completion_flags allow it, successful sends, RDMA writes and RDMA reads posted UNSIGNALLED among
     * signalled ones each still complete, with their cookies, in posting order, for a dequeue.
     * If this fails, an UNSIGNALLED request that succeeded was never queued on the request EVD (that is SUPPRESS's
     * job, which the consumer asks for separately).
     */
    @Test
    @DatRule(call = "dat_ep_post_send", section = "PARAMETERS",
            rule = "every request: UNSIGNALLED successes still complete in order")
    void optional_ep_post_send_unsignalledSuccessesStillComplete() {
        optionalFeature((f.provider.completionFlagsSupported() & DatCompletionFlags.UNSIGNALLED) != 0,
                "completion_flags_supported lacks UNSIGNALLED");
        Side active = f.side(f.epAttr(DatCompletionFlags.DEFAULT, DatCompletionFlags.UNSIGNALLED), null);
        Connection c = f.connect(active, f.side(f.epAttr(), null));
        DatEp ep = c.active().ep();
        boolean reads = ep.query().epAttr().maxRdmaReadOut() > 0;
        Region src = f.region();
        pattern(src.memory(), 41);
        Region remote = f.region();
        pattern(remote.memory(), 43);
        Region dst = f.region();
        Region read = f.region();
        Iov iov = f.iov(1);
        int requests = 12;
        for (int i = 0; i < requests; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, c.passive().ep().postRecv(1, iov.set(0, dst.lmr(), 64L * i, 64), i, 0),
                    "dat_ep_post_recv " + i);
        }
        Map<Long, String> posted = new LinkedHashMap<>();
        for (int i = 0; i < requests; i++) {
            int flags = i % 3 == 2 ? DatCompletionFlags.DEFAULT : DatCompletionFlags.UNSIGNALLED;
            String kind = flags == 0 ? "signalled" : "UNSIGNALLED";
            int rc;
            switch (i % 4) {
                case 0, 1 -> {
                    rc = ep.postSend(1, iov.set(0, src.lmr(), 64L * i, 64), i, flags);
                    posted.put((long) i, kind + " dat_ep_post_send");
                }
                case 2 -> {
                    rc = ep.postRdmaWrite(1, iov.set(0, src.lmr(), 64L * i, 64), i, remote.lmr().rmrContext(),
                            remote.address() + 2048 + 64L * i, 64, flags);
                    posted.put((long) i, kind + " dat_ep_post_rdma_write");
                }
                default -> {
                    if (reads) {
                        rc = ep.postRdmaRead(1, iov.set(0, read.lmr(), 64L * i, 64), i, remote.lmr().rmrContext(),
                                remote.address() + 64L * i, 64, flags);
                        posted.put((long) i, kind + " dat_ep_post_rdma_read");
                    } else {
                        rc = ep.postSend(1, iov.set(0, src.lmr(), 64L * i, 64), i, flags);
                        posted.put((long) i, kind + " dat_ep_post_send");
                    }
                }
            }
            assertStatus(DatReturn.DAT_SUCCESS, rc, posted.get((long) i) + " " + i);
        }
        for (Map.Entry<Long, String> p : posted.entrySet()) {
            DatEvent e = f.next(c.active().requestEvd());
            assertSame(DatEventType.DTO_COMPLETION, e.type(), "completion of the " + p.getValue() + " " + p.getKey());
            assertEquals(p.getKey(), e.userCookie(), "completions in posting order: the " + p.getValue() + " "
                    + p.getKey() + " (an UNSIGNALLED success is still queued)");
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus(), "status of the " + p.getValue() + " " + p.getKey());
        }
        f.quiet(c.active().requestEvd(), "after one completion per request");
        for (int i = 3; i < requests && reads; i += 4) {
            assertSameBytes(remote.memory().asSlice(64L * i, 64), read.memory().asSlice(64L * i, 64),
                    "bytes of RDMA read " + i);
        }
    }
}
