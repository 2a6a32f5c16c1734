package io.lockfabric.fabric;

import java.io.Serial;

/**
 * A fabric refused to let this client in, or this client refused the server: a wrong or missing
 * shared secret, a certificate that does not verify, a server that cannot prove it knows the secret,
 * or a server of another wire version. Bad configuration, not a transient failure: retrying with the
 * same settings fails the same way. The message says which and what to change, in one line.
 */
public class AuthenticationException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message) {
        super(message);
    }

    public AuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }
}
