import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The JDK's HTTP server provider, except that a server asked to listen on all interfaces listens on
 * loopback only. StanfordCoreNLPServer binds {@code new InetSocketAddress(port)} (every interface) and has
 * no option to choose the address; selected with
 * {@code -Dcom.sun.net.httpserver.HttpServerProvider=LoopbackHttpServerProvider}.
 */
public final class LoopbackHttpServerProvider extends HttpServerProvider {
    private final HttpServerProvider jdk = new sun.net.httpserver.DefaultHttpServerProvider();

    /** The address itself, or loopback on its port when it is the wildcard address (null stays unbound). */
    private static InetSocketAddress loopback(InetSocketAddress address) {
        if (address != null && (address.getAddress() == null || address.getAddress().isAnyLocalAddress())) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), address.getPort());
        }
        return address;
    }

    @Override
    public HttpServer createHttpServer(InetSocketAddress address, int backlog) throws IOException {
        return jdk.createHttpServer(loopback(address), backlog);
    }

    @Override
    public HttpsServer createHttpsServer(InetSocketAddress address, int backlog) throws IOException {
        return jdk.createHttpsServer(loopback(address), backlog);
    }
}
