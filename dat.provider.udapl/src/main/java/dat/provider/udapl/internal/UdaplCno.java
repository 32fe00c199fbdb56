// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.DatCno;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.udapl.internal.ffm.DatStatus;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.provider.udapl.internal.ffm.LibDat2;
import dat.spi.AbstractCno;
import dat.spi.DatArgs;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A consumer notification object of the C provider ({@code dat_cno_create}): C triggers it, C's
 * {@code dat_cno_wait} waits for it, and C keeps its agent, so what the consumer sees is the C provider's CNO.
 *
 * <p><b>The agent.</b> C calls an agent as a function with an {@code instance_data} pointer, from whichever thread
 * triggered the CNO: a thread of the consumer in {@code dat_evd_post_se}, or the C provider's own event thread for
 * completions and connection events. The bridge hands C one upcall for every CNO, with an {@code instance_data} that
 * names the Java agent given at {@code dat_cno_create} or {@code dat_cno_modify_agent}; the upcall only queues the
 * call for the IA's agent thread ({@link UdaplIa#runAgent}), which runs the Java agent. Running it on C's thread
 * could deadlock: OFA's event thread calls agents between taking a CQ or connection event and acknowledging it, and
 * a consumer thread holding the IA's lock in {@code dat_evd_free} or {@code dat_ep_free} waits in
 * {@code ibv_destroy_cq} or {@code rdma_destroy_id} for that acknowledgement, while an agent calling into the IA
 * would wait for the lock.
 *
 * <p><b>What C decides stays visible.</b> OFA clears the agent when it calls it (so {@code dat_cno_query} then
 * reports none, and the next trigger calls no agent), triggers only an untriggered CNO, and answers a
 * {@code dat_cno_wait} that timed out with {@code DAT_QUEUE_EMPTY}: the bridge passes all of it on.
 *
 * <p><b>Locks.</b> {@code dat_cno_wait} runs in {@link UdaplWait} slices under this CNO's fair {@link #use} lock,
 * not the IA's; the free marks the CNO closed, then takes {@link #use} before C's {@code dat_cno_free}, so no slice
 * is in C when the handle goes (and C, which refuses to free a CNO with a waiter, sees none).
 */
final class UdaplCno extends AbstractCno<UdaplIa> {

    /** DAT 2.0's {@code DAT_QUEUE_EMPTY}: OFA's {@code dapl_cno_wait} answers a timeout with it. */
    static final int C_QUEUE_EMPTY = 0x000D0000;
    /** DAT 2.0's {@code DAT_TIMEOUT_EXPIRED}. */
    static final int C_TIMEOUT = 0x800F0000;
    /** Where {@code DAT_CNO_PARAM}'s union holds the agent's {@code instance_data}, then its function. */
    private static final long PROXY = offset(DatStructs.DAT_CNO_PARAM, "proxy");

    private static final AtomicLong NEXT_AGENT = new AtomicLong(1);
    /** Every agent C may still call, by its {@code instance_data}; an entry leaves when its CNO is freed. */
    static final Map<Long, Binding> AGENTS = new ConcurrentHashMap<>();

    /** A Java agent of one CNO, as C names it. */
    record Binding(UdaplCno cno, DatCno.Agent agent) {
    }

    /** The C handle. */
    final MemorySegment handle;
    private final UdaplIa ia;
    /** Guards the C wait and {@link #evdOut}; fair, so a free is not starved by a waiter's next slice. */
    private final ReentrantLock use = new ReentrantLock(true);
    private final MemorySegment evdOut;
    /** The {@code instance_data} of every agent this CNO gave C; guarded by the IA's lock. */
    private final List<Long> given = new ArrayList<>();
    /** Bumped when the last EVD bound to the CNO is freed: a wait in progress then returns no EVD. */
    private final AtomicLong releases = new AtomicLong();

    UdaplCno(UdaplIa ia, DatCno.Agent agent) {
        super(ia, agent);
        this.ia = ia;
        this.evdOut = ia.arena.allocate(ADDRESS);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            UdaplIa.check("dat_cno_create", ia.lib.cnoCreate(ia.handle, agentStruct(local, agent), out));
            this.handle = UdaplIa.handleOut(out);
        } catch (RuntimeException e) {
            forgetAgents();
            throw e;
        }
    }

    /** {@return C's {@code DAT_OS_WAIT_PROXY_AGENT} for {@code agent}, entered into {@link #AGENTS}} */
    private MemorySegment agentStruct(Arena arena, DatCno.Agent agent) {
        MemorySegment s = arena.allocate(LibDat2.AGENT_BY_VALUE);
        if (agent != null) {
            long id = NEXT_AGENT.getAndIncrement();
            AGENTS.put(id, new Binding(this, agent));
            given.add(id);
            s.set(ADDRESS, 0, MemorySegment.ofAddress(id));
            s.set(ADDRESS, ADDRESS.byteSize(), Upcall.STUB);
        }
        return s;
    }

    private void forgetAgents() {
        for (long id : given) {
            AGENTS.remove(id);
        }
        given.clear();
    }

    /** {@code dat_cno_free}, marked closed and under the IA's lock: waits out a slice in C, then frees. */
    @Override
    protected void implFree() {
        use.lock();
        try {
            ia.untrack(handle.address());
            forgetAgents();
            ia.freed("dat_cno_free", ia.lib.cnoFree(handle));
        } finally {
            use.unlock();
        }
    }

    /**
     * The last EVD bound to this CNO was freed. OFA's {@code dapl_evd_free} triggers the CNO with no EVD only when a
     * thread is inside C's {@code dat_cno_wait} at that moment; a bridge waiter between two of its slices is not, and
     * would wait on where a C consumer's single wait would have ended. So the bridge ends its own waiters here (their
     * next slice returns no EVD, as uDAPL 1.2's {@code dat_cno_wait} says). The agent is left to C: OFA calls it only
     * when it triggers, which the kit's rule shows.
     */
    @Override
    protected void implAllEvdsFreed() {
        releases.incrementAndGet();
    }

    /** {@code dat_cno_wait} in {@link UdaplWait} slices; C's statuses pass through. */
    @Override
    protected DatEvd implAwait(long timeoutMicros) {
        String call = "dat_cno_wait";
        DatArgs.timeout(call, timeoutMicros, DatReturnSubtype.INVALID_ARG2);
        DatEvd[] evd = {null};
        long releasesBefore = releases.get();
        int rc = sliced(slice -> {
            use.lock();
            try {
                if (isClosed() || releases.get() != releasesBefore) {
                    // Unblocked with no EVD, as uDAPL 1.2 says for a CNO whose IA is closed (its free is refused
                    // while a thread waits) or whose last EVD was freed (implAllEvdsFreed).
                    return DatReturn.DAT_SUCCESS;
                }
                evdOut.set(ADDRESS, 0, MemorySegment.NULL);
                int c = ia.lib.cnoWait(handle, slice, evdOut);
                if (DatStatus.ok(c)) {
                    evd[0] = (DatEvd) ia.any(evdOut.get(ADDRESS, 0).address());
                }
                return c;
            } finally {
                use.unlock();
            }
        }, timeoutMicros, UdaplWait.SLICE_MICROS);
        if (rc == DatReturn.DAT_INTERRUPTED_CALL) {
            throw new DatException(DatReturn.INTERRUPTED_CALL, DatReturnSubtype.SUB_INTERRUPTED,
                    call + ": the waiting thread was interrupted");
        }
        UdaplIa.check(call, rc);
        return evd[0];
    }

    /**
     * {@link UdaplWait#await} for {@code dat_cno_wait}, whose slice that runs out C may answer with
     * {@code DAT_QUEUE_EMPTY} (OFA) or {@code DAT_TIMEOUT_EXPIRED}: either means wait on while the consumer's time
     * lasts, and what C said of the last slice is the answer when it is over.
     *
     * @param c one C wait of at most the given slice
     * @param timeoutMicros the consumer's timeout
     * @param sliceMicros the slice
     * @return the C status, or {@code DAT_INTERRUPTED_CALL}
     */
    static int sliced(UdaplWait.CWait c, long timeoutMicros, int sliceMicros) {
        int[] last = {C_TIMEOUT};
        int rc = UdaplWait.await(slice -> {
            last[0] = c.await(slice);
            return last[0] == C_QUEUE_EMPTY ? C_TIMEOUT : last[0];
        }, timeoutMicros, sliceMicros);
        return rc == C_TIMEOUT ? last[0] : rc;
    }

    /** {@code dat_cno_modify_agent}: C keeps the agent. */
    @Override
    protected void implModifyAgent(DatCno.Agent newAgent) {
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen("dat_cno_modify_agent");
            UdaplIa.check("dat_cno_modify_agent", ia.lib.cnoModifyAgent(handle, agentStruct(local, newAgent)));
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_cno_query}: the agent C holds now. */
    @Override
    protected DatCno.Agent implAgent() {
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen("dat_cno_query");
            MemorySegment param = local.allocate(DatStructs.DAT_CNO_PARAM);
            UdaplIa.check("dat_cno_query", ia.lib.cnoQuery(handle, DatStructs.DAT_CNO_FIELD_ALL, param));
            MemorySegment func = param.get(ADDRESS, PROXY + ADDRESS.byteSize());
            if (func.address() == 0) {
                return null;
            }
            Binding b = AGENTS.get(param.get(ADDRESS, PROXY).address());
            return b == null || b.cno != this ? null : b.agent;
        } finally {
            ia.lock.unlock();
        }
    }

    /**
     * What C's call of an agent does: queues the Java agent for the IA's agent thread. Never throws (an exception
     * leaving an upcall ends the JVM).
     *
     * @param instanceData the agent's {@code instance_data}
     * @param evd the C EVD that triggered, or NULL
     */
    static void triggered(MemorySegment instanceData, MemorySegment evd) {
        try {
            Binding b = AGENTS.get(instanceData.address());
            if (b != null) {
                b.cno.ia.runAgent(b.cno, b.agent, evd.address());
            }
        } catch (Throwable t) {
            UdaplIa.LOG.log(System.Logger.Level.ERROR, "a CNO agent could not be queued", t);
        }
    }

    /** The one upcall C calls for every agent, made when the first CNO with an agent is. */
    // Restricted on purpose: reached only after UdaplProvider checked Module.isNativeAccessEnabled().
    @SuppressWarnings("restricted")
    static final class Upcall {
        /** {@code void (*)(DAT_PVOID, DAT_EVD_HANDLE)}, alive for the process: C may hold it until it exits. */
        static final MemorySegment STUB;

        static {
            try {
                STUB = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(UdaplCno.class,
                                "triggered", MethodType.methodType(void.class, MemorySegment.class,
                                        MemorySegment.class)),
                        FunctionDescriptor.ofVoid(ADDRESS, ADDRESS), Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private Upcall() {
        }
    }
}
