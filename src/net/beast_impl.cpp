// The one translation unit that compiles Boost.Beast's and Asio SSL's implementation
// (BOOST_BEAST_SEPARATE_COMPILATION): every other file only includes declarations.
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
