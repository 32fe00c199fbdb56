// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.DatReturn;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every object function the bridge binds resolves in the installed libdat2 with the descriptor the bridge gives
 * it, and is callable: each is called once with a {@code NULL} first handle, which libdat2's own wrapper
 * ({@code dat/common/dat_api.c}, {@code dat/udat/udat_api.c} of dapl 2.1.10) answers with
 * {@code DAT_INVALID_HANDLE} before anything reaches a C provider, so no device is needed. A wrong arity or
 * argument class would throw {@code WrongMethodTypeException} from {@code invokeExact}; a missing symbol fails
 * {@link LibDat2#load}.
 *
 * <p>It also pins why the bridge validates every handle in Java: libdat2 checks only {@code NULL} (a non-null
 * handle of any other kind is dereferenced through {@code DAT_HANDLE_TO_PROVIDER}).
 */
class LibDat2BindingsTest {

    private static final String LIBDAT2 = "/usr/lib/x86_64-linux-gnu/libdat2.so.2";

    @Test
    void everyObjectFunctionAnswersANullHandleWithInvalidHandle() throws Exception {
        assumeTrue(Files.exists(Path.of(LIBDAT2)) || "true".equals(System.getenv("CI")), "install libdapl2 (apt)");
        LibDat2 lib = LibDat2.load(LibDat2.SONAME);
        MemorySegment n = MemorySegment.NULL;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(DatStructs.DAT_EVENT);
            MemorySegment region = arena.allocate(LibDat2.REGION_BY_VALUE);
            MemorySegment agent = arena.allocate(LibDat2.AGENT_BY_VALUE);
            Map<String, IntSupplier> calls = new LinkedHashMap<>();
            calls.put("dat_pz_create", () -> lib.pzCreate(n, out));
            calls.put("dat_pz_free", () -> lib.pzFree(n));
            calls.put("dat_pz_query", () -> lib.pzQuery(n, DatStructs.DAT_PZ_FIELD_ALL, out));
            calls.put("dat_lmr_create", () -> lib.lmrCreate(n, DatStructs.DAT_MEM_TYPE_VIRTUAL, region, 0, n, 0,
                    DatStructs.DAT_VA_TYPE_VA, out, out, out, out, out));
            calls.put("dat_lmr_free", () -> lib.lmrFree(n));
            calls.put("dat_lmr_query", () -> lib.lmrQuery(n, 0, out));
            calls.put("dat_rmr_create", () -> lib.rmrCreate(n, out));
            calls.put("dat_rmr_free", () -> lib.rmrFree(n));
            calls.put("dat_rmr_query", () -> lib.rmrQuery(n, 0, out));
            calls.put("dat_rmr_bind", () -> lib.rmrBind(n, n, out, 0, 0, n, 0L, 0, out));
            calls.put("dat_evd_create", () -> lib.evdCreate(n, 1, n, 0, out));
            calls.put("dat_evd_free", () -> lib.evdFree(n));
            calls.put("dat_evd_query", () -> lib.evdQuery(n, 0, out));
            calls.put("dat_evd_resize", () -> lib.evdResize(n, 1));
            calls.put("dat_evd_modify_cno", () -> lib.evdModifyCno(n, n));
            calls.put("dat_evd_post_se", () -> lib.evdPostSe(n, out));
            calls.put("dat_evd_dequeue", () -> lib.evdDequeue(n, out));
            calls.put("dat_evd_wait", () -> lib.evdWait(n, 0, 1, out, out));
            calls.put("dat_evd_enable", () -> lib.evdEnable(n));
            calls.put("dat_evd_disable", () -> lib.evdDisable(n));
            calls.put("dat_evd_set_unwaitable", () -> lib.evdSetUnwaitable(n));
            calls.put("dat_evd_clear_unwaitable", () -> lib.evdClearUnwaitable(n));
            calls.put("dat_cno_create", () -> lib.cnoCreate(n, agent, out));
            calls.put("dat_cno_free", () -> lib.cnoFree(n));
            calls.put("dat_cno_wait", () -> lib.cnoWait(n, 0, out));
            calls.put("dat_cno_modify_agent", () -> lib.cnoModifyAgent(n, agent));
            calls.put("dat_cno_query", () -> lib.cnoQuery(n, DatStructs.DAT_CNO_FIELD_ALL, out));
            calls.put("dat_ep_create", () -> lib.epCreate(n, n, n, n, n, n, out));
            calls.put("dat_ep_free", () -> lib.epFree(n));
            calls.put("dat_ep_query", () -> lib.epQuery(n, 0L, out));
            calls.put("dat_ep_modify", () -> lib.epModify(n, 0L, out));
            calls.put("dat_ep_connect", () -> lib.epConnect(n, n, 0L, 0, 0, n, 0, 0));
            calls.put("dat_ep_dup_connect", () -> lib.epDupConnect(n, n, 0, 0, n, 0));
            calls.put("dat_ep_disconnect", () -> lib.epDisconnect(n, 0));
            calls.put("dat_ep_reset", () -> lib.epReset(n));
            calls.put("dat_ep_get_status", () -> lib.epGetStatus(n, n, n, n));
            calls.put("dat_ep_post_send", () -> lib.epPostSend(n, 0, n, 0L, 0));
            calls.put("dat_ep_post_recv", () -> lib.epPostRecv(n, 0, n, 0L, 0));
            calls.put("dat_ep_post_rdma_read", () -> lib.epPostRdmaRead(n, 0, n, 0L, n, 0));
            calls.put("dat_ep_post_rdma_write", () -> lib.epPostRdmaWrite(n, 0, n, 0L, n, 0));
            calls.put("dat_psp_create", () -> lib.pspCreate(n, 1L, n, 0, out));
            calls.put("dat_psp_create_any", () -> lib.pspCreateAny(n, out, n, 0, out));
            calls.put("dat_psp_free", () -> lib.pspFree(n));
            calls.put("dat_psp_query", () -> lib.pspQuery(n, DatStructs.DAT_PSP_FIELD_ALL, out));
            calls.put("dat_rsp_create", () -> lib.rspCreate(n, 1L, n, n, out));
            calls.put("dat_rsp_free", () -> lib.rspFree(n));
            calls.put("dat_rsp_query", () -> lib.rspQuery(n, 0, out));
            calls.put("dat_cr_accept", () -> lib.crAccept(n, n, 0, n));
            calls.put("dat_cr_reject", () -> lib.crReject(n, 0, n));
            calls.put("dat_cr_query", () -> lib.crQuery(n, 0, out));
            calls.put("dat_cr_handoff", () -> lib.crHandoff(n, 1L));
            List<Executable> checks = new ArrayList<>();
            for (Map.Entry<String, IntSupplier> c : calls.entrySet()) {
                int rc = c.getValue().getAsInt();
                checks.add(() -> assertEquals(DatReturn.INVALID_HANDLE, DatStatus.type(rc),
                        c.getKey() + "(NULL, ...) returned " + DatStatus.describe(rc)));
            }
            assertEquals(51, calls.size(), "object functions called");
            assertAll(checks);
        }
    }
}
