// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatCno;
import dat.api.DatCr;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatEventType;
import dat.api.DatHandle;
import dat.api.DatRmr;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Wraps every DAT handle of a working provider in a proxy that lets one {@link Fault} bend one call, so the kit can
 * be shown to catch that exact breakage. Handles passed back in are unwrapped, and handles coming out (return
 * values, records, events) are wrapped, so identity checks in the rules see one consistent world.
 */
final class Breaker {

    /** One deliberate breakage: sees every call before and after the real provider does. */
    interface Fault {

        /**
         * {@return the arguments to pass on (possibly changed), or throw {@link Answer} to skip the real call}
         *
         * @param call the proxy-side view of the call
         */
        default Object[] before(Call call) {
            return call.args();
        }

        /**
         * {@return what the consumer sees}
         *
         * @param call the call
         * @param result what the real provider returned
         */
        default Object after(Call call, Object result) {
            return result;
        }

        /**
         * {@return a result to return instead, or rethrow}
         *
         * @param call the call
         * @param thrown what the real provider threw
         * @throws RuntimeException to let it through
         */
        default Object thrown(Call call, RuntimeException thrown) {
            throw thrown;
        }
    }

    /** A call on a wrapped handle: the real target, the method name, and the (unwrapped) arguments. */
    record Call(Object target, String method, Object[] args) {

        boolean is(Class<?> type, String name) {
            return type.isInstance(target) && method.equals(name);
        }
    }

    /** Thrown by {@link Fault#before} to answer without calling the provider. */
    static final class Answer extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Object value;

        Answer(Object value) {
            super(null, null, false, false);
            this.value = value;
        }
    }

    private final Fault fault;
    private final IdentityHashMap<Object, Object> proxies = new IdentityHashMap<>();
    private final IdentityHashMap<Object, Object> reals = new IdentityHashMap<>();

    private Breaker(Fault fault) {
        this.fault = fault;
    }

    /**
     * {@return the broken view of {@code real}}
     *
     * @param real a handle of a working provider
     * @param fault the breakage
     * @param <T> the handle type
     */
    @SuppressWarnings("unchecked")
    static <T extends DatHandle> T wrap(T real, Fault fault) {
        return (T) new Breaker(fault).out(real);
    }

    synchronized Object out(Object value) {
        if (value instanceof DatHandle handle) {
            return proxies.computeIfAbsent(handle, this::proxy);
        }
        if (value instanceof Record record && record.getClass().getPackageName().equals("dat.api")) {
            return rebuild(record);
        }
        return value;
    }

    synchronized Object in(Object value) {
        Object real = reals.get(value);
        return real != null ? real : value;
    }

    private Object proxy(Object real) {
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        for (Class<?> c = real.getClass(); c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (i.getPackageName().equals("dat.api")) {
                    interfaces.add(i);
                }
            }
        }
        InvocationHandler handler = (proxy, method, args) -> invoke(real, method, args);
        Object proxy = Proxy.newProxyInstance(DatHandle.class.getClassLoader(), interfaces.toArray(new Class<?>[0]),
                handler);
        reals.put(proxy, real);
        return proxy;
    }

    private Object invoke(Object real, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> args[0] == real || in(args[0]) == real;
                case "hashCode" -> System.identityHashCode(real);
                default -> "broken " + real;
            };
        }
        Object[] realArgs = args == null ? new Object[0] : args.clone();
        for (int i = 0; i < realArgs.length; i++) {
            realArgs[i] = switch (realArgs[i]) {
                case DatEventHandler h -> wrapHandler(h);
                case DatCno.Agent a -> new WrappedAgent(a, this);
                case null, default -> in(realArgs[i]);
            };
        }
        Call call = new Call(real, method.getName(), realArgs);
        Object result;
        try {
            Object[] passed = fault.before(call);
            result = method.invoke(real, passed);
            result = fault.after(new Call(real, method.getName(), passed), result);
        } catch (Answer answer) {
            result = answer.value;
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                result = fault.thrown(call, runtime);
            } else {
                throw e.getCause();
            }
        }
        for (Object arg : realArgs) {
            if (arg instanceof DatEvent event) {
                rewrite(event);
            }
        }
        return out(result);
    }

    private DatEventHandler wrapHandler(DatEventHandler consumer) {
        return event -> {
            rewrite(event);
            consumer.onEvent(event);
        };
    }

    /**
     * A CNO's agent as the real provider sees it: it hands the consumer's agent the proxy of the EVD that triggered,
     * and {@code dat_cno_query} reports the consumer's agent again ({@link #rebuild}).
     *
     * @param consumer the agent the consumer gave
     * @param breaker the breaker whose proxies the consumer knows
     */
    private record WrappedAgent(DatCno.Agent consumer, Breaker breaker) implements DatCno.Agent {
        @Override
        public void triggered(DatEvd evd) {
            consumer.triggered((DatEvd) breaker.out(evd));
        }
    }

    /** Replaces the real handles an event names by their proxies. */
    void rewrite(DatEvent e) {
        if (e.type() == null) {
            return;
        }
        int nmore = e.nmore();
        DatEvd evd = (DatEvd) out(e.evd());
        DatEventType t = e.type();
        switch (t) {
            case DTO_COMPLETION -> e.setDtoCompletion(evd, (DatEp) out(e.ep()), e.userCookie(), e.dtoStatus(),
                    e.transferredLength());
            case RMR_BIND_COMPLETION -> e.setRmrBindCompletion(evd, (DatRmr) out(e.rmr()), e.userCookie(),
                    e.dtoStatus());
            case CONNECTION_REQUEST_EVENT -> e.setConnectionRequest(evd, (DatHandle) out(e.sp()), e.connQual(),
                    (DatCr) out(e.cr()));
            case SOFTWARE_EVENT -> e.setSoftwareEvent(evd, e.softwareEventValue());
            default -> {
                if (t.evdFlag() == DatEvdFlags.ASYNC) {
                    e.setAsyncEvent(t, evd, (DatHandle) out(e.asyncHandle()), e.asyncReason());
                } else {
                    e.setConnectionEvent(t, evd, (DatEp) out(e.ep()), e.privateData());
                }
            }
        }
        e.nmore(nmore);
    }

    private Object rebuild(Record record) {
        RecordComponent[] components = record.getClass().getRecordComponents();
        List<Object> values = new ArrayList<>();
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                Object v = components[i].getAccessor().invoke(record);
                values.add(v instanceof DatHandle ? out(v) : v instanceof WrappedAgent w ? w.consumer() : v);
            }
            return record.getClass().getDeclaredConstructor(types).newInstance(values.toArray());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot rebuild " + record, e);
        }
    }
}
