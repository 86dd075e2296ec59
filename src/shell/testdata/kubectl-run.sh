# kubectl run -i: a command that runs once prints its output and, with --restart=Never, ends with
# the container's exit code; --rm deletes the pod; --overrides patches the pod; $? carries over
$ kubectl create deployment web --image=nginx && kubectl expose deployment web --port 80 && sleep 10
$ kubectl run -i --rm --restart=Never probe --image=busybox -- wget -qO- -T 2 web
$ echo $?
$ kubectl run -i --rm --restart=Never probe --image=busybox -- wget -qO- -T 2 nope
$ echo $?
$ kubectl run -i --rm --restart=Never script --image=busybox -- sh -c 'echo hi; exit 3'
$ echo $?
$ kubectl run -i --restart=Never once --image=busybox -- echo hello
$ kubectl get pod once
$ kubectl run pinned --image=nginx --overrides='{"spec":{"nodeName":"node2"}}' && sleep 5
$ kubectl get pod pinned -o jsonpath='{.spec.nodeName}{"\n"}'
$ kubectl run bad --image=nginx --overrides='{nope'
$ kubectl get pod nope
$ echo "status $?"
