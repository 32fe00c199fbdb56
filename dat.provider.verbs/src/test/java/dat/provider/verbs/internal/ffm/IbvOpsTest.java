// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dat.layoutcheck.LayoutCheck;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The re-implemented {@code static inline} verbs follow {@code object->context->ops.<slot>} exactly as verbs.h
 * does, and the data-path invokers hand the driver exactly the addresses they were given (they pass pointers as
 * 64-bit integers): checked without a device by building a fake {@code ibv_context} whose ops slots are C
 * functions, compiled here with gcc, that record their arguments. (Not Java upcalls: the data-path invokers are
 * critical downcalls, which must never call back into Java; the JVM stops with a fatal error if one does.)
 *
 * <p>Needs {@code gcc}; without it the data-path test is skipped, except under {@code CI=true}, where it fails.
 */
@SuppressWarnings("restricted") // the tests run with native access
class IbvOpsTest {

    private static final String FAKE_DRIVER = """
            #include <stdint.h>
            uintptr_t seen[3];
            int seen_int;
            int fake_poll_cq(void *cq, int num_entries, void *wc) {
                seen[0] = (uintptr_t) cq; seen_int = num_entries; seen[1] = (uintptr_t) wc; seen[2] = 0;
                return 3;
            }
            int fake_post(void *queue, void *wr, void **bad_wr) {
                seen[0] = (uintptr_t) queue; seen[1] = (uintptr_t) wr; seen[2] = (uintptr_t) bad_wr;
                return (int) ((uintptr_t) wr & 0xff);
            }
            int fake_req_notify_cq(void *cq, int solicited_only) {
                seen[0] = (uintptr_t) cq; seen_int = solicited_only; seen[1] = 0; seen[2] = 0;
                return 7;
            }
            """;

    @TempDir
    Path work;

    @Test
    void dataPathVerbsCallTheContextsOpsSlotsWithTheirArguments() throws Exception {
        Path library = compileFakeDriver();
        try (Arena arena = Arena.ofShared()) {
            SymbolLookup driver = SymbolLookup.libraryLookup(library, arena);
            MemorySegment seen = driver.findOrThrow("seen").reinterpret(3 * JAVA_LONG.byteSize());
            MemorySegment seenInt = driver.findOrThrow("seen_int").reinterpret(JAVA_INT.byteSize());
            MemorySegment poll = driver.findOrThrow("fake_poll_cq");
            MemorySegment post = driver.findOrThrow("fake_post");
            MemorySegment notify = driver.findOrThrow("fake_req_notify_cq");
            MemorySegment context = arena.allocate(IbvContext.LAYOUT);
            context.set(IbvContextOps.SLOT, IbvContext.OPS + IbvContextOps.POLL_CQ, poll);
            context.set(IbvContextOps.SLOT, IbvContext.OPS + IbvContextOps.POST_SEND, post);
            context.set(IbvContextOps.SLOT, IbvContext.OPS + IbvContextOps.POST_RECV, post);
            context.set(IbvContextOps.SLOT, IbvContext.OPS + IbvContextOps.POST_SRQ_RECV, post);
            context.set(IbvContextOps.SLOT, IbvContext.OPS + IbvContextOps.REQ_NOTIFY_CQ, notify);
            MemorySegment cq = arena.allocate(IbvCq.LAYOUT);
            IbvCq.context(cq, context);
            MemorySegment qp = arena.allocate(IbvQp.LAYOUT);
            IbvQp.context(qp, context);
            MemorySegment srq = arena.allocate(IbvSrq.LAYOUT);
            IbvSrq.context(srq, context);
            MemorySegment wc = arena.allocate(IbvWc.LAYOUT, 4);
            MemorySegment badWr = arena.allocate(ADDRESS);

            assertEquals(3, IbvOps.ibv_poll_cq(cq, 4, wc));
            assertSeen(seen, cq, wc, null);
            assertEquals(4, seenInt.get(JAVA_INT, 0));
            assertEquals(poll.address(), IbvOps.function(context, IbvContextOps.POLL_CQ).address());

            assertEquals(7, IbvOps.ibv_req_notify_cq(cq, true));
            assertSeen(seen, cq, null, null);
            assertEquals(1, seenInt.get(JAVA_INT, 0));

            // The address's low byte comes back as the result: a pointer argument arrives whole.
            MemorySegment wr = arena.allocate(IbvSendWr.LAYOUT);
            int low = (int) (wr.address() & 0xff);
            assertEquals(low, IbvOps.ibv_post_send(qp, wr, badWr));
            assertSeen(seen, qp, wr, badWr);
            assertEquals(low, IbvOps.ibv_post_recv(qp, wr, badWr));
            assertSeen(seen, qp, wr, badWr);
            assertEquals(low, IbvOps.ibv_post_srq_recv(srq, wr, badWr));
            assertSeen(seen, srq, wr, badWr);
        }
    }

    private static void assertSeen(MemorySegment seen, MemorySegment a, MemorySegment b, MemorySegment c) {
        assertEquals(a.address(), seen.getAtIndex(JAVA_LONG, 0), "first pointer argument");
        assertEquals(b == null ? 0 : b.address(), seen.getAtIndex(JAVA_LONG, 1), "second pointer argument");
        assertEquals(c == null ? 0 : c.address(), seen.getAtIndex(JAVA_LONG, 2), "third pointer argument");
    }

    /** Builds the fake driver; skips without gcc, or fails under {@code CI=true}. */
    private Path compileFakeDriver() throws Exception {
        Path source = Files.writeString(work.resolve("fake_driver.c"), FAKE_DRIVER, StandardCharsets.UTF_8);
        Path library = work.resolve("libfakedriver.so");
        boolean built;
        try {
            Process gcc = new ProcessBuilder("gcc", "-O1", "-shared", "-fPIC", "-o", library.toString(),
                    source.toString()).redirectErrorStream(true).redirectOutput(work.resolve("gcc.txt").toFile())
                    .start();
            built = gcc.waitFor(60, TimeUnit.SECONDS) && gcc.exitValue() == 0;
        } catch (IOException e) {
            built = false; // no gcc on PATH
        }
        if (!built) {
            LayoutCheck.skipOrFailOnCi("gcc could not build the fake driver (apt install gcc)");
        }
        return library;
    }

    @Test
    void memoryWindowInlinesKeepTheirChecks() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment context = arena.allocate(IbvContext.LAYOUT);
            MemorySegment pd = arena.allocate(IbvPd.LAYOUT);
            IbvPd.context(pd, context);
            NativeCallException e = assertThrows(NativeCallException.class, () -> IbvOps.ibv_alloc_mw(pd, 1));
            assertEquals(Errno.EOPNOTSUPP, e.errno());

            MemorySegment mw = arena.allocate(IbvMw.LAYOUT);
            IbvMw.context(mw, context);
            IbvMw.type(mw, LibIbverbs.IBV_MW_TYPE_2);
            MemorySegment bind = arena.allocate(IbvMwBind.LAYOUT);
            assertEquals(Errno.EINVAL, IbvOps.ibv_bind_mw(MemorySegment.NULL, mw, bind));

            IbvMw.type(mw, LibIbverbs.IBV_MW_TYPE_1);
            MemorySegment mr = arena.allocate(IbvMr.LAYOUT);
            IbvMr.pd(mr, arena.allocate(IbvPd.LAYOUT));
            IbvMw.pd(mw, pd);
            IbvMwBind.bindInfoMr(bind, mr);
            assertEquals(Errno.EPERM, IbvOps.ibv_bind_mw(MemorySegment.NULL, mw, bind));
        }
    }
}
