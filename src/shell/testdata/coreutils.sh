# The node's everyday commands as Rocky Linux 9.4's GNU coreutils 8.32 and bash print them: ls's
# long listing (SELinux '.', root's files, XFS sizes, the cluster's clock), its errors and
# options, cat/head/tail/wc on a directory, uname, date, env, history.
$ uname
$ uname -a
$ uname -srm
$ uname -x
$ uname foo
$ date
$ date -u +%Y-%m-%dT%H:%M:%S
$ date -I
$ ls
$ ls -a
$ ls -la
$ ls -l /etc
$ ls /nope
$ ls -ld / /root /tmp /dev/null
$ mkdir -p demo/sub && cd demo && echo hello > a.txt && echo 'apiVersion: v1' > svc-web.yml && touch .hidden
$ sleep 90
$ echo more >> a.txt; touch 'with space'; ln -s a.txt link
$ ls
$ ls -l
$ ls -la
$ ls -lh --full-time
$ ls -ltr
$ ls -lS
$ ls -F
$ ls -p sub a.txt
$ ls -1A
$ ls -s
$ ls -i a.txt
$ ls -R
$ ls -d sub
$ ls --al
$ ls *.txt nope.txt
$ ls -z
$ ls --all --sort=size
$ ls --sort=foo
$ ls --time=x
$ ls --s
$ ls --version
$ cd
$ cat /etc
$ cat /etc/hostname /nope
$ head /etc /nope
$ tail -n 1 /nope
$ wc /etc/hosts /etc
$ wc -l /etc/hosts
$ echo one two | wc
$ mkdir /tmp
$ touch -t 202512250830 /tmp/xmas && ls -l /tmp/xmas
$ env
$ X=1; export Y=2; printenv Y; printenv X; echo $?
$ history 3
