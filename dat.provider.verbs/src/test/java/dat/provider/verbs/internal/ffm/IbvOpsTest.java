// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The re-implemented {@code static inline} verbs follow {@code object->context->ops.<slot>} exactly as verbs.h
 * does: checked without a device by building a fake {@code ibv_context} whose ops slots are upcall stubs into
 * this test.
 */
@SuppressWarnings("restricted") // upcall stubs stand in for a driver's ops; the tests run with native access
class IbvOpsTest {

    private static final AtomicLong SEEN_CQ = new AtomicLong();
    private static final AtomicLong SEEN_ENTRIES = new AtomicLong();

    static int pollCq(MemorySegment cq, int numEntries, MemorySegment wc) {
        SEEN_CQ.set(cq.address());
        SEEN_ENTRIES.set(numEntries);
        return 3;
    }

    static int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        return (int) (wr.address() & 0xff);
    }

    @Test
    void dataPathVerbsCallTheContextsOpsSlots() throws Exception {
        Linker linker = Linker.nativeLinker();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment poll = linker.upcallStub(MethodHandles.lookup().findStatic(IbvOpsTest.class, "pollCq",
                    MethodType.methodType(int.class, MemorySegment.class, int.class, MemorySegment.class)),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), arena);
            MemorySegment send = linker.upcallStub(MethodHandles.lookup().findStatic(IbvOpsTest.class, "postSend",
                    MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class, MemorySegment.class)),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), arena);
            MemorySegment context = arena.allocate(IbvContext.LAYOUT);
            context.set(ADDRESS, IbvContext.OPS + IbvContextOps.POLL_CQ, poll);
            context.set(ADDRESS, IbvContext.OPS + IbvContextOps.POST_SEND, send);
            MemorySegment cq = arena.allocate(IbvCq.LAYOUT);
            cq.set(ADDRESS, IbvCq.CONTEXT, context);
            MemorySegment qp = arena.allocate(IbvQp.LAYOUT);
            qp.set(ADDRESS, IbvQp.CONTEXT, context);
            MemorySegment wc = arena.allocate(IbvWc.LAYOUT, 4);

            assertEquals(3, IbvOps.ibv_poll_cq(cq, 4, wc));
            assertEquals(cq.address(), SEEN_CQ.get());
            assertEquals(4, SEEN_ENTRIES.get());
            assertEquals(poll.address(), IbvOps.function(context, IbvContextOps.POLL_CQ).address());

            MemorySegment wr = MemorySegment.ofAddress(0x1234_5642L);
            assertEquals(0x42, IbvOps.ibv_post_send(qp, wr, arena.allocate(ADDRESS)));
        }
    }

    @Test
    void memoryWindowInlinesKeepTheirChecks() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment context = arena.allocate(IbvContext.LAYOUT);
            MemorySegment pd = arena.allocate(IbvPd.LAYOUT);
            pd.set(ADDRESS, IbvPd.CONTEXT, context);
            NativeCallException e = assertThrows(NativeCallException.class, () -> IbvOps.ibv_alloc_mw(pd, 1));
            assertEquals(Errno.EOPNOTSUPP, e.errno());

            MemorySegment mw = arena.allocate(IbvMw.LAYOUT);
            mw.set(ADDRESS, IbvMw.CONTEXT, context);
            mw.set(JAVA_INT, IbvMw.TYPE, LibIbverbs.IBV_MW_TYPE_2);
            MemorySegment bind = arena.allocate(IbvMwBind.LAYOUT);
            assertEquals(Errno.EINVAL, IbvOps.ibv_bind_mw(MemorySegment.NULL, mw, bind));

            mw.set(JAVA_INT, IbvMw.TYPE, LibIbverbs.IBV_MW_TYPE_1);
            MemorySegment mr = arena.allocate(IbvMr.LAYOUT);
            mr.set(ADDRESS, IbvMr.PD, arena.allocate(IbvPd.LAYOUT));
            mw.set(ADDRESS, IbvMw.PD, pd);
            bind.set(ADDRESS, IbvMwBind.BIND_INFO + IbvMwBindInfo.MR, mr);
            assertEquals(Errno.EPERM, IbvOps.ibv_bind_mw(MemorySegment.NULL, mw, bind));
        }
    }
}
