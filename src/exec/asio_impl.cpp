// The one translation unit that compiles Boost.Asio's implementation
// (BOOST_ASIO_SEPARATE_COMPILATION): every other file only includes declarations.
#include <boost/asio/impl/src.hpp>
