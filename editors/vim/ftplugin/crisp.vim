" crisp.vim - Crisp buffers: Lisp indentation and comments, and :make
" runs crisp on the file, its diagnostics in the quickfix list.
if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1
setlocal lisp autoindent
setlocal comments=:;;;,:;;,:; commentstring=;;\ %s
setlocal iskeyword+=!,?,*,+,-,<,>,=,~,%
setlocal lispwords+=def-kernel,def-kernel-exact,def-function,def-grid-function,def-struct
setlocal lispwords+=def-enumeration,def-derived-type,def-const-vec,def-setter,def-constraint
setlocal lispwords+=with-template-type,with-struct-accessors,in-each-thread,loop-grid-stride
setlocal lispwords+=loop-vector-stride,dotimes,let-maybe,multiple-value-bind,when-thread-is
setlocal makeprg=crisp\ %
setlocal errorformat=%f:%l:%c:\ %trror[%*[^]]]:\ %m,%f:%l:%c:\ %tarning[%*[^]]]:\ %m,%f:%l:%c:\ %tote:\ %m
let b:undo_ftplugin = "setlocal lisp< autoindent< comments< commentstring< iskeyword< lispwords< makeprg< errorformat<"
